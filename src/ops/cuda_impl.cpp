// torch.ops.sum_double.add and its out= form for CUDA tensors: driver check, validate, device
// guard, current stream, early return when empty, launch, launch check (naming a GPU this build
// has no code for).

#include <cuda_runtime_api.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>

#include <string>
#include <utility>

#include "add_op.h"
#include "build_info.h"
#include "common/cuda_arch_check.h"
#include "common/cuda_driver_check.h"
#include "out_arg.h"
#include "sum_double/add_cuda.h"
#include "sum_double/cuda_stream.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// cudart is linked in statically, so this binary needs a driver for the CUDA it was built with,
// whatever torch's own CUDA is. Without one every launch fails with "CUDA driver version is
// insufficient for CUDA runtime version"; this says which driver to get instead. Decided once, by
// the first call (a function-local static: thread-safe); the driver cannot change under a process.
void check_driver() {
  static const std::string problem = [] {
    int driver = 0;  // cudaDriverGetVersion reports 0, and succeeds, when there is no driver
    // Should the query itself fail, the op goes on and the launch check reports the real error.
    if (cudaDriverGetVersion(&driver) != cudaSuccess) return std::string();
    return driver_problem(CUDART_VERSION, driver);
  }();
  SUM_DOUBLE_CHECK(problem.empty(), problem);
}

// A GPU this build carries no code for fails its launch with CUDA's bare "no kernel image is
// available for execution on the device"; this names the GPU, what the build carries and the fix.
// Some drivers say "invalid device function" instead, which other mistakes also cause, so both go
// through the rule, and the message replaces CUDA's only where the rule agrees. Not
// cudaErrorUnsupportedPtxVersion: there the GPU has PTX to run and the driver is too old to compile
// it, which CUDA's own words say. Called only when a launch failed: the hot path asks nothing more.
void check_arch(cudaError_t status, int32_t device) {
  if (status != cudaErrorNoKernelImageForDevice && status != cudaErrorInvalidDeviceFunction) return;
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, device) != cudaSuccess) {
    cudaGetLastError();  // not left behind for the next launch check; CUDA's own error follows
    return;
  }
  const std::string problem =
      cuda_arch_problem(props.name, device, props.major, props.minor, SUM_DOUBLE_CUDA_ARCHS);
  SUM_DOUBLE_CHECK(problem.empty(), problem);
}

void launch(const AddPlan& plan, int32_t device, cudaStream_t stream) {
  if (plan.numel == 0) return;
  const cudaError_t status = add_cuda(plan, stream);
  if (status != cudaSuccess) check_arch(status, device);
  SUM_DOUBLE_CHECK(status == cudaSuccess, kPrefix, "CUDA kernel launch failed on cuda:", device,
                   ": ", cudaGetErrorString(status));
}

Tensor add_cuda_op(const Tensor& a, const Tensor& b) {
  check_driver();  // first: with the wrong driver, nothing else here can work
  const Inputs inputs = check_inputs(a, b);
  const int32_t device = inputs.device_index;
  const torch::stable::accelerator::DeviceGuard guard(device);
  const cudaStream_t stream = current_cuda_stream(device, kCaller);
  Operands operands = make_operands(a, b, inputs);
  launch(operands.plan, device, stream);
  return std::move(operands.out);
}

Tensor add_out_cuda_op(const Tensor& a, const Tensor& b, Tensor out) {
  check_driver();
  const Inputs inputs = check_inputs(a, b);
  const int32_t device = inputs.device_index;
  const torch::stable::accelerator::DeviceGuard guard(device);
  const cudaStream_t stream = current_cuda_stream(device, kCaller);
  const Fill fill = prepare_out(a, b, inputs, out);
  const Operands operands = make_operands(a, b, inputs, fill == Fill::kInPlace ? &out : nullptr);
  launch(operands.plan, device, stream);
  return fill == Fill::kCopy ? copy_result(out, operands.out) : out;
}

}  // namespace
}  // namespace sum_double::op

STABLE_TORCH_LIBRARY_IMPL(sum_double, CUDA, m) {
  for (const char* name : sum_double::op::kOpNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_cuda_op));
  }
  for (const char* name : sum_double::op::kOutNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_out_cuda_op));
  }
}
