// The schema of torch.ops.sum_double.add, the checks, output and launcher plan its
// implementations share, and the kernel that turns away every tensor they do not take (sparse,
// nested, quantized, MKLDNN, other devices) with a message that says which argument and how to
// convert it.
#include "add_op.h"
#include "add_layout.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <algorithm>
#include <array>
#include <string>

namespace sum_double::op {
namespace {

using torch::headeronly::DeviceType;
using torch::headeronly::Layout;
using torch::headeronly::ScalarType;
using torch::stable::Tensor;

// Newer headers keep torch's own message (e.g. "CUDA out of memory") in the exception, when the
// running torch can give it (library_facts.h); older ones only name the failed call.
#ifdef STABLE_TORCH_ERROR_CODE_CHECK
#define CHECK_SHIM(call) STABLE_TORCH_ERROR_CODE_CHECK(call)
#else
#define CHECK_SHIM(call) TORCH_ERROR_CODE_CHECK(call)
#endif

// The C shim's codes for what the hot path compares against. They are constants of the running
// torch, but each is a call into it, so they are asked once.
struct ShimCodes {
  int32_t strided = aoti_torch_layout_strided();
  int32_t float16 = aoti_torch_dtype_float16();
  int32_t bfloat16 = aoti_torch_dtype_bfloat16();
  int32_t float32 = aoti_torch_dtype_float32();
  int32_t float64 = aoti_torch_dtype_float64();
};

const ShimCodes& shim_codes() {
  static const ShimCodes codes;
  return codes;
}

// Messages name dtypes and device types from the shim's codes, which are the values of torch's
// ScalarType and DeviceType: the stable conversions to those enums throw for the ones they do not
// know (quantized dtypes, most device types), and a message must never throw instead.
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

// ---- Tensors the CPU and CUDA kernels do not take ----------------------------------------------

[[noreturn]] void not_dense(const char* name, const std::string& what, const char* conversion) {
  fail("sum_double.add(): expected ", name, " to be a dense (torch.strided) tensor, but got ", what,
       "; convert it with ", conversion, " first");
}

// A strided nested tensor reports torch.strided, and asking its sizes fails (which older torch
// versions also print to stderr). Its dispatch keys set it apart: _has_compatible_shallow_copy_type
// compares them with a plain tensor's on the same device. Only asked on the way to an error.
bool is_strided_nested(const Tensor& t) {
  int32_t dtype = 0, device_type = 0, device_index = 0;
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &dtype));
  CHECK_SHIM(aoti_torch_get_device_type(t.get(), &device_type));
  CHECK_SHIM(aoti_torch_get_device_index(t.get(), &device_index));
  const int64_t size = 0, stride = 1;
  AtenTensorHandle plain = nullptr;
  CHECK_SHIM(aoti_torch_empty_strided(1, &size, &stride, dtype, device_type, device_index, &plain));
  std::array<StableIValue, 2> stack{torch::stable::detail::from(t),
                                    torch::stable::detail::from(Tensor(plain))};
  CHECK_SHIM(torch_call_dispatcher("aten::_has_compatible_shallow_copy_type", "", stack.data(),
                                   TORCH_ABI_VERSION));
  return !torch::stable::detail::to<bool>(stack[0]);
}

// Throws unless t (the argument called `name`) is a defined, dense tensor of a plain dtype. A
// tensor's layout tells sparse, MKLDNN and jagged nested tensors; its dtype, quantized ones.
// Strided nested tensors need is_strided_nested(), which only maybe_nested callers ask.
void check_dense(const Tensor& t, const char* name, bool maybe_nested) {
  SUM_DOUBLE_CHECK(t.defined(), "sum_double.add(): expected ", name,
                   " to be a Tensor, but got None");
  switch (t.layout()) {
    case Layout::Strided:
      break;
    case Layout::Sparse:
      not_dense(name, "a sparse tensor (torch.sparse_coo layout)", ".to_dense()");
    case Layout::SparseCsr:
      not_dense(name, "a sparse tensor (torch.sparse_csr layout)", ".to_dense()");
    case Layout::SparseCsc:
      not_dense(name, "a sparse tensor (torch.sparse_csc layout)", ".to_dense()");
    case Layout::SparseBsr:
      not_dense(name, "a sparse tensor (torch.sparse_bsr layout)", ".to_dense()");
    case Layout::SparseBsc:
      not_dense(name, "a sparse tensor (torch.sparse_bsc layout)", ".to_dense()");
    case Layout::Mkldnn:
      not_dense(name, "an MKLDNN tensor (torch._mkldnn layout)", ".to_dense()");
    case Layout::Jagged:
      not_dense(name, "a nested tensor (torch.jagged layout)", ".to_padded_tensor(0)");
    default:
      not_dense(name, "a tensor of another layout", ".to_dense()");
  }
  int32_t dtype = 0;
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &dtype));
  if (torch::headeronly::isQIntType(static_cast<ScalarType>(dtype))) {
    not_dense(name, "a quantized tensor (" + dtype_name(dtype) + ")", ".dequantize()");
  }
  if (maybe_nested && is_strided_nested(t)) {
    not_dense(name, "a nested tensor (torch.strided layout)", ".to_padded_tensor(0)");
  }
}

// The dispatcher calls this for every dispatch key without a kernel of its own (registered below),
// so it says what is wrong with the first argument at fault. Dense tensors of one device reach it
// only from a device this build has no kernel for.
Tensor add_unsupported(const Tensor& a, const Tensor& b, bool maybe_nested) {
  check_dense(a, "a", maybe_nested);
  check_dense(b, "b", maybe_nested);
  const Inputs inputs = check_inputs(a, b);
  fail("sum_double.add(): expected tensors on cpu or cuda, but got a and b on ",
       device_name(inputs.device_type, inputs.device_index));
}

Tensor add_not_nested(const Tensor& a, const Tensor& b) { return add_unsupported(a, b, false); }
Tensor add_maybe_nested(const Tensor& a, const Tensor& b) { return add_unsupported(a, b, true); }

// ---- Checks and operands of the CPU and CUDA kernels -------------------------------------------

// What the checks compare, each asked of torch once per tensor.
struct Facts {
  int32_t layout = 0, dtype = 0, device_type = 0, device_index = 0;
  int64_t* sizes = nullptr;
  int64_t* strides = nullptr;
  int64_t dim = 0;
};

Facts facts_of(const Tensor& t, const char* name) {
  // None arrives as an undefined tensor, on which every other query fails with torch's words.
  SUM_DOUBLE_CHECK(t.defined(), "sum_double.add(): expected ", name,
                   " to be a Tensor, but got None");
  Facts f;
  CHECK_SHIM(aoti_torch_get_layout(t.get(), &f.layout));
  // The dispatcher sends other layouts to add_unsupported; this keeps the kernels safe should
  // one arrive all the same.
  if (f.layout != shim_codes().strided) check_dense(t, name, false);
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &f.dtype));
  CHECK_SHIM(aoti_torch_get_device_type(t.get(), &f.device_type));
  CHECK_SHIM(aoti_torch_get_device_index(t.get(), &f.device_index));
  CHECK_SHIM(aoti_torch_get_sizes(t.get(), &f.sizes));
  CHECK_SHIM(aoti_torch_get_strides(t.get(), &f.strides));
  CHECK_SHIM(aoti_torch_get_dim(t.get(), &f.dim));
  return f;
}

DType launcher_dtype(int32_t code, const char* name) {
  const ShimCodes& codes = shim_codes();
  if (code == codes.float32) return DType::kFloat32;
  if (code == codes.bfloat16) return DType::kBFloat16;
  if (code == codes.float16) return DType::kFloat16;
  if (code == codes.float64) return DType::kFloat64;
  fail("sum_double.add(): expected ", name,
       " to be a floating-point tensor (float16, bfloat16, float32 or float64), but got ",
       dtype_name(code));
}

int32_t shim_dtype(DType dtype) {
  const ShimCodes& codes = shim_codes();
  switch (dtype) {
    case DType::kFloat16:
      return codes.float16;
    case DType::kBFloat16:
      return codes.bfloat16;
    case DType::kFloat32:
      return codes.float32;
    case DType::kFloat64:
      break;
  }
  return codes.float64;
}

Tensor new_tensor(const Inputs& in, const int64_t* strides) {
  // Straight to the allocator through the C shim: torch::stable::new_empty is a boxed dispatcher
  // call, which costs more host time than the whole rest of a small add.
  AtenTensorHandle out = nullptr;
  CHECK_SHIM(aoti_torch_empty_strided(in.dim, in.sizes, strides, in.out_torch_dtype, in.device_type,
                                      in.device_index, &out));
  return Tensor(out);
}

}  // namespace

Inputs check_inputs(const Tensor& a, const Tensor& b) {
  const Facts fa = facts_of(a, "a");
  const Facts fb = facts_of(b, "b");
  SUM_DOUBLE_CHECK(fa.device_type == fb.device_type && fa.device_index == fb.device_index,
                   "sum_double.add(): expected a and b on the same device, but got a on ",
                   device_name(fa.device_type, fa.device_index), " and b on ",
                   device_name(fb.device_type, fb.device_index));
  Inputs in;
  in.a_dtype = launcher_dtype(fa.dtype, "a");
  in.b_dtype = launcher_dtype(fb.dtype, "b");
  // torch.result_type: a 0-dim tensor does not raise the dtype of a dimensioned one of its
  // category (all of these are floating), so then the dimensioned one's dtype wins.
  if ((fa.dim == 0) == (fb.dim == 0)) {
    in.out_dtype = promote(in.a_dtype, in.b_dtype);
  } else {
    in.out_dtype = fa.dim == 0 ? in.b_dtype : in.a_dtype;
  }
  in.out_torch_dtype = shim_dtype(in.out_dtype);
  in.device_type = fa.device_type;
  in.device_index = fa.device_index;
  in.a_sizes = fa.sizes;
  in.b_sizes = fb.sizes;
  in.a_strides = fa.strides;
  in.b_strides = fb.strides;
  in.a_dim = fa.dim;
  in.b_dim = fb.dim;
  in.dim = std::max(fa.dim, fb.dim);
  SUM_DOUBLE_CHECK(in.dim <= kMaxDims, "sum_double.add(): expected at most ", kMaxDims,
                   " dims, but got ", in.dim);
  // Broadcasting, aligned at the last dim: sizes must agree where neither is 1.
  in.numel = 1;
  for (int64_t d = 0; d < in.dim; ++d) {
    const int64_t da = d - (in.dim - fa.dim), db = d - (in.dim - fb.dim);
    const int64_t sa = da >= 0 ? fa.sizes[da] : 1, sb = db >= 0 ? fb.sizes[db] : 1;
    SUM_DOUBLE_CHECK(sa == sb || sa == 1 || sb == 1,
                     "sum_double.add(): expected the shapes of a and b to broadcast, but a: ",
                     shape_of(fa.sizes, fa.dim), " and b: ", shape_of(fb.sizes, fb.dim),
                     " differ in dim ", d, " of the result (", sa, " and ", sb,
                     "), where neither is 1");
    in.sizes[d] = sa == 1 ? sb : sa;
    SUM_DOUBLE_CHECK(!__builtin_mul_overflow(in.numel, in.sizes[d], &in.numel),
                     "sum_double.add(): the shapes of a: ", shape_of(fa.sizes, fa.dim),
                     " and b: ", shape_of(fb.sizes, fb.dim),
                     " broadcast to more than 2^63 elements");
  }
  return in;
}

Operands make_operands(const Tensor& a, const Tensor& b, const Inputs& in) {
  std::array<int64_t, kMaxDims> out_strides;
  Tensor out;
  // Allocation fails here, on a full GPU or one already broken by an earlier error. torch's
  // reason may come along (library_facts.h), or only the failed call's name, so say
  // what was being allocated. The Python wrapper turns either into torch.OutOfMemoryError, or
  // raises the earlier error.
  torch_add_strides(in, out_strides.data());
  try {
    out = new_tensor(in, out_strides.data());
  } catch (const std::exception& e) {
    fail("sum_double.add(): could not allocate memory for ", shape_of(in.sizes, in.dim), " ",
         dtype_name(in.out_torch_dtype), " elements on ",
         device_name(in.device_type, in.device_index), ": ", e.what());
  }
  Operands operands;  // the plan uninitialised: plan_add fills what the launchers read
  operands.out = out;
  std::array<int64_t, kMaxDims> as, bs;
  broadcast_strides(in.a_sizes, in.a_strides, in.a_dim, in, as.data());
  broadcast_strides(in.b_sizes, in.b_strides, in.b_dim, in, bs.data());
  const AddArgs args{in.dim,         in.sizes,     a.data_ptr(),      in.a_dtype,
                     as.data(),      b.data_ptr(), in.b_dtype,        bs.data(),
                     out.data_ptr(), in.out_dtype, out_strides.data()};
  const char* problem = plan_add(args, operands.plan);
  SUM_DOUBLE_CHECK(problem == nullptr, "sum_double.add(): ", problem);
  return operands;
}

}  // namespace sum_double::op

STABLE_TORCH_LIBRARY(sum_double, m) { m.def("add(Tensor a, Tensor b) -> Tensor"); }

// Every tensor that the CPU and CUDA kernels do not take gets add_unsupported's message through
// two of the dispatcher's alias keys, each standing for every key without a kernel of its own: no
// list of keys to keep up with new layouts and devices (as registering one per key, even in a loop
// through the C shim, would need), and the only way to reach jagged tensors at all.
// CompositeExplicitAutograd: every backend (sparse, quantized, MKLDNN, devices without a kernel
// here) and calls with no tensor (None, None). CompositeImplicitAutogradNestedTensor: nested
// tensors, which the other does not cover; a jagged one is a Python subclass whose
// __torch_dispatch__ falls back to this key's kernel for ops it does not know.
STABLE_TORCH_LIBRARY_IMPL(sum_double, CompositeExplicitAutograd, m) {
  m.impl("add", TORCH_BOX(&sum_double::op::add_not_nested));
}
STABLE_TORCH_LIBRARY_IMPL(sum_double, CompositeImplicitAutogradNestedTensor, m) {
  m.impl("add", TORCH_BOX(&sum_double::op::add_maybe_nested));
}
