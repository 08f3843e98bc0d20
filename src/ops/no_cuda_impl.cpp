// CPU-only builds: CUDA tensors get a clear error saying why, instead of the dispatcher's
// "could not run 'sum_double::add' with arguments from the 'CUDA' backend".
#include <torch/csrc/stable/library.h>

#include "add_op.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

[[noreturn]] Tensor add_cuda_unavailable(const Tensor& /*a*/, const Tensor& /*b*/) {
  fail(kPrefix,
       "got CUDA tensors, but this sum_double was built CPU-only "
       "(no CUDA compiler at build time, or SUM_DOUBLE_CUDA=OFF). Reinstall it with "
       "nvcc on PATH, or with -Ccmake.define.SUM_DOUBLE_CUDA=ON to make a missing nvcc an error "
       "(docs/building.md)");
}

Tensor add_out_cuda_unavailable(const Tensor& a, const Tensor& b, const Tensor& /*out*/) {
  add_cuda_unavailable(a, b);
}

}  // namespace
}  // namespace sum_double::op

STABLE_TORCH_LIBRARY_IMPL(sum_double, CUDA, m) {
  for (const char* name : sum_double::op::kOpNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_cuda_unavailable));
  }
  for (const char* name : sum_double::op::kOutNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_out_cuda_unavailable));
  }
}
