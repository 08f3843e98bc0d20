// torch.ops.downstream_demo.add_via_sum_double(a, b): calls torch.ops.sum_double.add through
// PyTorch's dispatcher (<sum_double/op.h>), as an op of one package may build on another's. One
// kernel serves every device, since the op it calls dispatches by itself. sum_double must be
// imported before the first call: it loads the op library, which registers the op (op.h's error
// says so otherwise).
#include <sum_double/op.h>
#include <torch/csrc/stable/library.h>

namespace downstream_demo {
namespace {

torch::stable::Tensor add_via_sum_double(const torch::stable::Tensor& a,
                                         const torch::stable::Tensor& b) {
  return sum_double::add(a, b);
}

}  // namespace
}  // namespace downstream_demo

STABLE_TORCH_LIBRARY_FRAGMENT(downstream_demo, m) {
  m.def("add_via_sum_double(Tensor a, Tensor b) -> Tensor");
}
STABLE_TORCH_LIBRARY_IMPL(downstream_demo, CompositeExplicitAutograd, m) {
  m.impl("add_via_sum_double", TORCH_BOX(&downstream_demo::add_via_sum_double));
}
