// CPU-only builds: CUDA tensors get an error that says why, rather than the dispatcher's "could not
// run 'downstream_demo::add3' with arguments from the 'CUDA' backend".
#include <torch/csrc/stable/library.h>

#include <stdexcept>

namespace downstream_demo {
namespace {

torch::stable::Tensor add3_no_cuda(const torch::stable::Tensor&, const torch::stable::Tensor&,
                                   const torch::stable::Tensor&) {
  throw std::runtime_error(
      "downstream_demo.add3(): got CUDA tensors, but downstream_demo was built CPU-only (no "
      "SumDouble::cuda: a CPU-only sum-double wheel or no CUDA toolkit found at build time)");
}

}  // namespace
}  // namespace downstream_demo

STABLE_TORCH_LIBRARY_IMPL(downstream_demo, CUDA, m) {
  m.impl("add3", TORCH_BOX(&downstream_demo::add3_no_cuda));
}
