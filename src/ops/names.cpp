// The names of names.h.
#include "names.h"

#include <torch/headeronly/core/DeviceType.h>
#include <torch/headeronly/core/ScalarType.h>

namespace sum_double::op {

using torch::headeronly::DeviceType;
using torch::headeronly::ScalarType;

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

// Python's names for the dtypes a user is likely to pass.
std::string dtype_name(int32_t code) {
  switch (static_cast<ScalarType>(code)) {
    case ScalarType::Half:
      return "torch.float16";
    case ScalarType::BFloat16:
      return "torch.bfloat16";
    case ScalarType::Float:
      return "torch.float32";
    case ScalarType::Double:
      return "torch.float64";
    case ScalarType::Bool:
      return "torch.bool";
    case ScalarType::Byte:
      return "torch.uint8";
    case ScalarType::Char:
      return "torch.int8";
    case ScalarType::Short:
      return "torch.int16";
    case ScalarType::Int:
      return "torch.int32";
    case ScalarType::Long:
      return "torch.int64";
    case ScalarType::ComplexHalf:
      return "torch.complex32";
    case ScalarType::ComplexFloat:
      return "torch.complex64";
    case ScalarType::ComplexDouble:
      return "torch.complex128";
    case ScalarType::QInt8:
      return "torch.qint8";
    case ScalarType::QUInt8:
      return "torch.quint8";
    case ScalarType::QInt32:
      return "torch.qint32";
    case ScalarType::QUInt4x2:
      return "torch.quint4x2";
    case ScalarType::QUInt2x4:
      return "torch.quint2x4";
    default:
      return torch::headeronly::toString(static_cast<ScalarType>(code));
  }
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
