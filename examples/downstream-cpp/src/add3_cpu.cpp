// torch.ops.downstream_demo.add3 for CPU tensors: two calls of sum-double's CPU launcher.
#include <sum_double/add_cpu.h>
#include <torch/csrc/stable/library.h>

#include "add3.h"

namespace downstream_demo {
namespace {

torch::stable::Tensor add3_cpu(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                               const torch::stable::Tensor& c) {
  const Add3Operands op = add3_operands(a, b, c);
  // (a + b) + c with the sum rounded in between, as torch.add(torch.add(a, b), c) does: the same
  // bits. The launcher's output may not alias its inputs, hence ab.
  sum_double::add_cpu(op.a.data_ptr(), op.b.data_ptr(), op.ab.data_ptr(), op.n, op.dtype);
  sum_double::add_cpu(op.ab.data_ptr(), op.c.data_ptr(), op.out.data_ptr(), op.n, op.dtype);
  return op.out;
}

}  // namespace
}  // namespace downstream_demo

STABLE_TORCH_LIBRARY_IMPL(downstream_demo, CPU, m) {
  m.impl("add3", TORCH_BOX(&downstream_demo::add3_cpu));
}
