// torch.ops.sum_double.add for CUDA tensors: driver check, validate, device guard, current stream,
// early return when empty, launch, launch check.

// torch's C shim declares its CUDA calls only for CUDA builds; this file is one. The declaration
// gives the looked-up stream function its type (nothing here links against it).
#define USE_CUDA
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <torch/csrc/stable/accelerator.h>
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>

#include <string>
#include <utility>

#include "add_op.h"
#include "cuda_driver_check.h"
#include "sum_double/add_cuda.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// torch's current CUDA stream comes from aoti_torch_get_current_cuda_stream, which only
// libtorch_cuda exports. Linking against it would make this module fail to load under a CPU-only
// torch, so the symbol is looked up in the already-loaded library the first time a CUDA tensor
// arrives (a CUDA tensor implies a CUDA torch, hence a loaded libtorch_cuda).
cudaStream_t current_stream(int32_t device) {
  using GetStream = decltype(&aoti_torch_get_current_cuda_stream);
  static const GetStream get_stream = [] {
    void* lib = dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD);
    return lib ? reinterpret_cast<GetStream>(dlsym(lib, "aoti_torch_get_current_cuda_stream"))
               : nullptr;
  }();
  SUM_DOUBLE_CHECK(get_stream != nullptr,
                   "sum_double.add(): cannot find aoti_torch_get_current_cuda_stream in the loaded "
                   "libtorch_cuda.so; is this a CUDA build of torch?");
  void* stream = nullptr;
  SUM_DOUBLE_CHECK(get_stream(device, &stream) == TORCH_SUCCESS,
                   "sum_double.add(): could not get the current CUDA stream of cuda:", device);
  return static_cast<cudaStream_t>(stream);
}

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

Tensor add_cuda_op(const Tensor& a, const Tensor& b) {
  check_driver();  // first: with the wrong driver, nothing else here can work
  const Inputs inputs = check_inputs(a, b);
  const int32_t device = inputs.device_index;
  const torch::stable::accelerator::DeviceGuard guard(device);
  const cudaStream_t stream = current_stream(device);
  Operands operands = make_operands(a, b, inputs);
  if (operands.plan.numel == 0) return std::move(operands.out);
  const cudaError_t status = add_cuda(operands.plan, stream);
  SUM_DOUBLE_CHECK(status == cudaSuccess,
                   "sum_double.add(): CUDA kernel launch failed on cuda:", device, ": ",
                   cudaGetErrorString(status));
  return std::move(operands.out);
}

}  // namespace
}  // namespace sum_double::op

STABLE_TORCH_LIBRARY_IMPL(sum_double, CUDA, m) {
  m.impl("add", TORCH_BOX(&sum_double::op::add_cuda_op));
}
