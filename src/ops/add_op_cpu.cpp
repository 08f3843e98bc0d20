// torch.ops.sum_double.add for CPU tensors: validate, allocate, split the range over torch's
// intra-op thread pool, run the torch-free loop on each piece.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>

#include "add_op.h"
#include "sum_double/add_cpu.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// torch's own grain (at::internal::GRAIN_SIZE): below it, waking threads costs more than it saves.
constexpr int64_t kGrain = 32768;

Tensor add_cpu_op(const Tensor& a, const Tensor& b) {
  const Inputs inputs = check_inputs(a, b);
  const auto [a_flat, b_flat, out] = flat_operands(a, b, inputs);
  const int64_t n = inputs.numel;
  if (n == 0) return out;
  const auto* pa = static_cast<const char*>(a_flat.data_ptr());
  const auto* pb = static_cast<const char*>(b_flat.data_ptr());
  auto* po = static_cast<char*>(out.data_ptr());
  // Below the grain torch's parallel_for runs the loop inline too, but getting there is a call
  // into torch and back.
  if (n <= kGrain) {
    add_cpu(pa, pb, po, n, inputs.dtype);
    return out;
  }
  const int64_t size = element_size(inputs.dtype);
  torch::stable::parallel_for(0, n, kGrain, [&](int64_t begin, int64_t end) {
    add_cpu(pa + begin * size, pb + begin * size, po + begin * size, end - begin, inputs.dtype);
  });
  return out;
}

}  // namespace
}  // namespace sum_double::op

STABLE_TORCH_LIBRARY_IMPL(sum_double, CPU, m) {
  m.impl("add", TORCH_BOX(&sum_double::op::add_cpu_op));
}
