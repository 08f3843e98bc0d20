// The schema of torch.ops.sum_double.add, and the checks its implementations share.
#include "add_op.h"
#include "op_facts.h"

#include <dlfcn.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <algorithm>
#include <string>
#include <vector>

namespace sum_double::op {
namespace {

using torch::headeronly::DeviceType;
using torch::headeronly::Layout;
using torch::headeronly::ScalarType;
using torch::stable::Tensor;

std::string device_name(const torch::stable::Device& d) {
  std::string name = d.type() == DeviceType::CPU ? "cpu"
                     : d.type() == DeviceType::CUDA
                         ? "cuda"
                         : "device type " + std::to_string(int(d.type()));
  if (d.index() >= 0) name += ":" + std::to_string(d.index());
  return name;
}

std::string shape_of(const Tensor& t) {
  std::string shape = "[";
  const auto sizes = t.sizes();
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) shape += ", ";
    shape += std::to_string(sizes[i]);
  }
  return shape + "]";
}

// Python's names for the dtypes a user is likely to pass.
const char* dtype_name(ScalarType dtype) {
  switch (dtype) {
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
    default:
      return torch::headeronly::toString(dtype);
  }
}

// Python's names for the layouts, as a user would write them.
const char* layout_name(Layout layout) {
  switch (layout) {
    case Layout::Strided:
      return "torch.strided";
    case Layout::Sparse:
      return "torch.sparse_coo";
    case Layout::SparseCsr:
      return "torch.sparse_csr";
    case Layout::SparseCsc:
      return "torch.sparse_csc";
    case Layout::SparseBsr:
      return "torch.sparse_bsr";
    case Layout::SparseBsc:
      return "torch.sparse_bsc";
    case Layout::Mkldnn:
      return "torch._mkldnn";
    case Layout::Jagged:
      return "torch.jagged";
    default:
      return "an unknown layout";
  }
}

void check_strided(const Tensor& t, const char* name) {
  SUM_DOUBLE_CHECK(t.layout() == Layout::Strided, "sum_double.add(): expected ", name,
                   " to be a dense (torch.strided) tensor, but got ", layout_name(t.layout()),
                   "; convert it with .to_dense() first");
}

// The elements of t fill one gap-free, overlap-free block of memory, in some order of the dims
// (torch's is_non_overlapping_and_dense): sizes-1 dims aside, the strides sorted ascending are
// 1, size, size * size, ...
bool is_dense(const Tensor& t) {
  const auto sizes = t.sizes();
  const auto strides = t.strides();
  std::vector<size_t> dims;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] != 1) dims.push_back(d);
  }
  std::sort(dims.begin(), dims.end(), [&](size_t x, size_t y) { return strides[x] < strides[y]; });
  int64_t expected = 1;
  for (const size_t d : dims) {
    if (strides[d] != expected) return false;
    expected *= sizes[d];
  }
  return true;
}

// Newer headers keep torch's own message (e.g. "CUDA out of memory") in the exception, when the
// running torch can give it (torch_reason_in_errors()); older ones only name the failed call.
#ifdef STABLE_TORCH_ERROR_CODE_CHECK
#define CHECK_SHIM(call) STABLE_TORCH_ERROR_CODE_CHECK(call)
#else
#define CHECK_SHIM(call) TORCH_ERROR_CODE_CHECK(call)
#endif

Tensor new_tensor(const Tensor& like, const int64_t* strides) {
  // Straight to the allocator through the C shim: torch::stable::new_empty is a boxed dispatcher
  // call, which costs more host time than the whole rest of a small add.
  int32_t dtype = 0, device_type = 0, device_index = 0;
  CHECK_SHIM(aoti_torch_get_dtype(like.get(), &dtype));
  CHECK_SHIM(aoti_torch_get_device_type(like.get(), &device_type));
  CHECK_SHIM(aoti_torch_get_device_index(like.get(), &device_index));
  const auto sizes = like.sizes();
  AtenTensorHandle out = nullptr;
  CHECK_SHIM(aoti_torch_empty_strided(static_cast<int64_t>(sizes.size()), sizes.data(), strides,
                                      dtype, device_type, device_index, &out));
  return Tensor(out);
}

Tensor new_contiguous(const Tensor& like) {
  const auto sizes = like.sizes();
  std::vector<int64_t> strides(sizes.size());
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= std::max<int64_t>(sizes[i], 1);
  }
  return new_tensor(like, strides.data());
}

}  // namespace

bool torch_reason_in_errors() {
#ifdef TORCH_DYNAMIC_VERSION_CALL_2_13_0
  // These headers' check looks up the shim that returns the reason at run time (torch >= 2.13).
  static const bool found = [] {
    void* lib = dlopen("libtorch_cpu.so", RTLD_NOW | RTLD_NOLOAD);
    return lib != nullptr && dlsym(lib, "torch_exception_get_what_without_backtrace") != nullptr;
  }();
  return found;
#else
  return false;  // with a 2.10 target, older headers only name the failed call
#endif
}

DType check_inputs(const Tensor& a, const Tensor& b) {
  // None arrives as an undefined tensor, on which every other query fails with torch's words.
  SUM_DOUBLE_CHECK(a.defined(), "sum_double.add(): expected a to be a Tensor, but got None");
  SUM_DOUBLE_CHECK(b.defined(), "sum_double.add(): expected b to be a Tensor, but got None");
  check_strided(a, "a");
  check_strided(b, "b");
  SUM_DOUBLE_CHECK(a.device() == b.device(),
                   "sum_double.add(): expected a and b on the same device, but got a on ",
                   device_name(a.device()), " and b on ", device_name(b.device()));
  const ScalarType dtype = a.scalar_type();
  SUM_DOUBLE_CHECK(
      dtype == b.scalar_type(),
      "sum_double.add(): expected a and b to have the same dtype, but got a: ", dtype_name(dtype),
      " and b: ", dtype_name(b.scalar_type()), " (no implicit promotion: cast one of them first)");
  SUM_DOUBLE_CHECK(a.sizes().equals(b.sizes()),
                   "sum_double.add(): expected a and b to have the same shape, but got a: ",
                   shape_of(a), " and b: ", shape_of(b), " (no broadcasting)");
  switch (dtype) {
    case ScalarType::Half:
      return DType::kFloat16;
    case ScalarType::BFloat16:
      return DType::kBFloat16;
    case ScalarType::Float:
      return DType::kFloat32;
    case ScalarType::Double:
      return DType::kFloat64;
    default:
      fail("sum_double.add(): expected a and b to be float16, bfloat16, ",
           "float32 or float64, but both are ", dtype_name(dtype));
  }
}

FlatOperands flat_operands(const Tensor& a, const Tensor& b) {
  // Allocations fail here, and the copies that make strided inputs dense could, but only on a GPU
  // already broken by an earlier error. torch's reason may come along (torch_reason_in_errors()),
  // or only the failed call's name, so say what was being allocated. The Python wrapper turns
  // either into torch.OutOfMemoryError, or raises the earlier error.
  try {
    if (a.is_contiguous() && b.is_contiguous()) return {a, b, new_contiguous(a)};
    if (a.strides().equals(b.strides()) && is_dense(a)) {
      return {a, b, new_tensor(a, a.strides().data())};
    }
    return {torch::stable::contiguous(a), torch::stable::contiguous(b), new_contiguous(a)};
  } catch (const std::exception& e) {
    fail("sum_double.add(): could not allocate memory for ", shape_of(a), " ",
         dtype_name(a.scalar_type()), " elements on ", device_name(a.device()), ": ", e.what());
  }
}

}  // namespace sum_double::op

STABLE_TORCH_LIBRARY(sum_double, m) { m.def("add(Tensor a, Tensor b) -> Tensor"); }
