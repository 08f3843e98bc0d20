// torch.ops.sum_double.add and its out= form for CPU tensors: validate, allocate (or check out),
// plan, split the range over torch's intra-op thread pool, run the torch-free loops on each piece.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>

#include <utility>

#include "add_op.h"
#include "out_arg.h"
#include "sum_double/add_cpu.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// torch's own grain (at::internal::GRAIN_SIZE): below it, waking threads costs more than it saves.
constexpr int64_t kGrain = 32768;

void run(const AddPlan& plan) {
  const int64_t n = plan.numel;
  // Below the grain torch's parallel_for runs the loop inline too, but getting there is a call
  // into torch and back.
  if (n <= kGrain) {
    add_cpu(plan, 0, n);
  } else {
    torch::stable::parallel_for(0, n, kGrain,
                                [&](int64_t begin, int64_t end) { add_cpu(plan, begin, end); });
  }
}

Tensor add_cpu_op(const Tensor& a, const Tensor& b) {
  const Inputs inputs = check_inputs(a, b);
  Operands operands = make_operands(a, b, inputs);
  run(operands.plan);
  return std::move(operands.out);
}

Tensor add_out_cpu_op(const Tensor& a, const Tensor& b, Tensor out) {
  const Inputs inputs = check_inputs(a, b);
  const Fill fill = prepare_out(a, b, inputs, out);
  const Operands operands = make_operands(a, b, inputs, fill == Fill::kInPlace ? &out : nullptr);
  run(operands.plan);
  return fill == Fill::kCopy ? copy_result(out, operands.out) : out;
}

}  // namespace
}  // namespace sum_double::op

STABLE_TORCH_LIBRARY_IMPL(sum_double, CPU, m) {
  for (const char* name : sum_double::op::kOpNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_cpu_op));
  }
  for (const char* name : sum_double::op::kOutNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_out_cpu_op));
  }
}
