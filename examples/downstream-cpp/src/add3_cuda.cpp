// torch.ops.downstream_demo.add3 for CUDA tensors: two launches of sum-double's CUDA launcher on
// torch's current stream.
#include <cuda_runtime_api.h>
#include <sum_double/add_cuda.h>
#include <sum_double/cuda_stream.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>

#include <stdexcept>
#include <string>

#include "add3.h"

namespace downstream_demo {
namespace {

void check_launch(cudaError_t status, int32_t device) {
  if (status != cudaSuccess) {
    throw std::runtime_error("downstream_demo.add3(): CUDA launch failed on cuda:" +
                             std::to_string(device) + ": " + cudaGetErrorString(status));
  }
}

torch::stable::Tensor add3_cuda(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                                const torch::stable::Tensor& c) {
  const Add3Operands op = add3_operands(a, b, c);
  const int32_t device = a.device().index();
  const torch::stable::accelerator::DeviceGuard guard(device);  // the launcher's current device
  const cudaStream_t stream = sum_double::current_cuda_stream(device, "downstream_demo.add3()");
  // (a + b) + c, rounded in between as torch.add rounds (see add3_cpu.cpp). Both launches and the
  // allocations share the stream, so ab's memory is not reused before the second one has read it.
  check_launch(sum_double::add_cuda(op.a.data_ptr(), op.b.data_ptr(), op.ab.data_ptr(), op.n,
                                    op.dtype, stream),
               device);
  check_launch(sum_double::add_cuda(op.ab.data_ptr(), op.c.data_ptr(), op.out.data_ptr(), op.n,
                                    op.dtype, stream),
               device);
  return op.out;
}

}  // namespace
}  // namespace downstream_demo

STABLE_TORCH_LIBRARY_IMPL(downstream_demo, CUDA, m) {
  m.impl("add3", TORCH_BOX(&downstream_demo::add3_cuda));
}
