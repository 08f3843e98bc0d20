// The schema of torch.ops.downstream_demo.add3, and the checks its kernels share.
#include "add3.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <stdexcept>
#include <string>

namespace downstream_demo {
namespace {

using torch::headeronly::ScalarType;
using torch::stable::Tensor;

std::string shape_of(const Tensor& t) {
  std::string shape = "[";
  for (const int64_t size : t.sizes()) {
    shape += (shape.size() > 1 ? ", " : "") + std::to_string(size);
  }
  return shape + "]";
}

std::string device_of(const Tensor& t) {
  const auto device = t.device();
  const bool cuda = device.type() == torch::headeronly::DeviceType::CUDA;
  return cuda ? "cuda:" + std::to_string(device.index()) : "cpu";
}

// t is like a (same device, dtype, shape) or the error names t. Dtypes by torch's C++ names
// (Float, Half, ...), as torch's own errors give them.
void check_like(const char* name, const Tensor& t, const Tensor& a) {
  const std::string where = std::string("downstream_demo.add3(): expected ") + name + " ";
  if (t.device() != a.device()) {
    throw std::runtime_error(where + "on a's device (" + device_of(a) + "), but it is on " +
                             device_of(t));
  }
  if (t.scalar_type() != a.scalar_type()) {
    throw std::runtime_error(where + "to have a's dtype (" +
                             torch::headeronly::toString(a.scalar_type()) + "), but it is " +
                             torch::headeronly::toString(t.scalar_type()));
  }
  if (!t.sizes().equals(a.sizes())) {
    throw std::runtime_error(where + "to have a's shape " + shape_of(a) + ", but it is " +
                             shape_of(t));
  }
}

sum_double::DType launcher_dtype(ScalarType dtype) {
  switch (dtype) {
    case ScalarType::Half:
      return sum_double::DType::kFloat16;
    case ScalarType::BFloat16:
      return sum_double::DType::kBFloat16;
    case ScalarType::Float:
      return sum_double::DType::kFloat32;
    case ScalarType::Double:
      return sum_double::DType::kFloat64;
    default:
      throw std::runtime_error(
          std::string("downstream_demo.add3(): expected a to be Half, BFloat16, Float or Double, "
                      "but it is ") +
          torch::headeronly::toString(dtype));
  }
}

}  // namespace

Add3Operands add3_operands(const Tensor& a, const Tensor& b, const Tensor& c) {
  check_like("b", b, a);
  check_like("c", c, a);
  const sum_double::DType dtype = launcher_dtype(a.scalar_type());
  // The simplest launcher call takes arrays, so this example copies strided inputs (contiguous()
  // returns others as they are); sum_double::plan_add() would read them in place.
  Tensor a_flat = torch::stable::contiguous(a);
  return {dtype,
          a.numel(),
          a_flat,
          torch::stable::contiguous(b),
          torch::stable::contiguous(c),
          torch::stable::empty_like(a_flat),
          torch::stable::empty_like(a_flat)};
}

}  // namespace downstream_demo

STABLE_TORCH_LIBRARY(downstream_demo, m) { m.def("add3(Tensor a, Tensor b, Tensor c) -> Tensor"); }
