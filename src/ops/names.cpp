// The names of names.h.
#include "names.h"

#include <torch/headeronly/core/DeviceType.h>
#include <torch/headeronly/core/ScalarType.h>

#include <algorithm>
#include <iterator>

namespace sum_double::op {

using torch::headeronly::DeviceType;

std::string device_name(int32_t type, int32_t index) {
  std::string name;
  switch (static_cast<DeviceType>(type)) {
    case DeviceType::CPU:
      name = "cpu";
      break;
    case DeviceType::CUDA:
      name = "cuda";
      break;
    case DeviceType::Meta:
      name = "meta";
      break;
    case DeviceType::XPU:
      name = "xpu";
      break;
    case DeviceType::MPS:
      name = "mps";
      break;
    case DeviceType::HPU:
      name = "hpu";
      break;
    case DeviceType::XLA:
      name = "xla";
      break;
    case DeviceType::Lazy:
      name = "lazy";
      break;
    case DeviceType::MTIA:
      name = "mtia";
      break;
    case DeviceType::PrivateUse1:
      name = "privateuseone";
      break;
    default:
      name = "device type " + std::to_string(type);
  }
  if (index >= 0) name += ":" + std::to_string(index);
  return name;
}

// Python's name of each dtype, by its code: torch's ScalarType values, which never change (files
// store them). By number, not by name: the headers of an older torch lack the newest dtypes.
constexpr const char* kDtypeNames[] = {
    "torch.uint8",             // 0
    "torch.int8",              // 1
    "torch.int16",             // 2
    "torch.int32",             // 3
    "torch.int64",             // 4
    "torch.float16",           // 5
    "torch.float32",           // 6
    "torch.float64",           // 7
    "torch.complex32",         // 8
    "torch.complex64",         // 9
    "torch.complex128",        // 10
    "torch.bool",              // 11
    "torch.qint8",             // 12
    "torch.quint8",            // 13
    "torch.qint32",            // 14
    "torch.bfloat16",          // 15
    "torch.quint4x2",          // 16
    "torch.quint2x4",          // 17
    "torch.bits1x8",           // 18
    "torch.bits2x4",           // 19
    "torch.bits4x2",           // 20
    "torch.bits8",             // 21
    "torch.bits16",            // 22
    "torch.float8_e5m2",       // 23
    "torch.float8_e4m3fn",     // 24
    "torch.float8_e5m2fnuz",   // 25
    "torch.float8_e4m3fnuz",   // 26
    "torch.uint16",            // 27
    "torch.uint32",            // 28
    "torch.uint64",            // 29
    "torch.uint1",             // 30
    "torch.uint2",             // 31
    "torch.uint3",             // 32
    "torch.uint4",             // 33
    "torch.uint5",             // 34
    "torch.uint6",             // 35
    "torch.uint7",             // 36
    "torch.int1",              // 37
    "torch.int2",              // 38
    "torch.int3",              // 39
    "torch.int4",              // 40
    "torch.int5",              // 41
    "torch.int6",              // 42
    "torch.int7",              // 43
    "torch.float8_e8m0fnu",    // 44
    "torch.float4_e2m1fn_x2",  // 45
    "torch.bcomplex32",        // 46, from torch 2.14 on
};
// Headers with a new dtype stop the build here, rather than a user's error naming a code. Older
// headers have fewer (torch 2.11's end before code 46): the table still names what they send.
static_assert(std::size(kDtypeNames) >=
              static_cast<size_t>(torch::headeronly::ScalarType::Undefined));

std::string dtype_name(int32_t code) {
  if (code >= 0 && code < static_cast<int32_t>(std::size(kDtypeNames))) return kDtypeNames[code];
  return "a dtype unknown to this build (torch's ScalarType " + std::to_string(code) + ")";
}

std::string dtype_fix(int32_t code, const char* name) {
  // complex32, complex64, complex128, bcomplex32: the values kept as real and imaginary parts.
  if ((code >= 8 && code <= 10) || code == 46) {
    return std::string("pass its real and imaginary parts as a real tensor, e.g. ") +
           "torch.view_as_real(" + name + ")";
  }
  // bits*, uint1-7, int1-7 and float4_e2m1fn_x2 hold packed data that .to() refuses.
  if ((code >= 18 && code <= 22) || (code >= 30 && code <= 43) || code == 45) {
    return "torch cannot convert it, so unpack it to one of those first";
  }
  // A dtype newer than this build: no conversion that is known to work.
  if (code < 0 || code >= static_cast<int32_t>(std::size(kDtypeNames))) {
    return "convert it to one of those first";
  }
  return std::string("convert it first, e.g. ") + name + ".to(torch.float32)";
}

bool is_floating_or_complex(int32_t code) {
  // float16, float32, float64, bfloat16; the float8 dtypes; complex32, complex64, complex128,
  // bcomplex32. Not float4_e2m1fn_x2 (45), packed pairs that torch's copy cannot write either.
  static constexpr int32_t kCodes[] = {5, 6, 7, 15, 23, 24, 25, 26, 44, 8, 9, 10, 46};
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

std::string shape_of(const int64_t* sizes, int64_t dim) {
  std::string shape = "[";
  for (int64_t i = 0; i < dim; ++i) {
    if (i) shape += ", ";
    shape += std::to_string(sizes[i]);
  }
  return shape + "]";
}

}  // namespace sum_double::op
