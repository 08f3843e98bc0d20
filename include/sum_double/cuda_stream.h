// torch's current CUDA stream, for a stable-ABI extension (sum-double's op layer, or yours) whose
// one binary must also load under a CPU-only torch. torch's getter,
// aoti_torch_get_current_cuda_stream, is exported by libtorch_cuda only: linking against it would
// make the binary fail to load where there is none. So it is looked up in the libtorch_cuda that is
// already loaded, the first time a CUDA tensor arrives (a CUDA tensor means a CUDA torch).
// Header-only; needs torch's and CUDA's headers, and -ldl where libc lacks dlopen (the
// SumDouble::headers target brings it).
#pragma once

#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <torch/csrc/stable/accelerator.h>  // AOTITorchError, TORCH_SUCCESS

#include <cstdint>
#include <stdexcept>
#include <string>

namespace sum_double {

// The current stream of cuda:`device`, as torch's own ops would use it. Throws std::runtime_error,
// its message starting with `caller` (e.g. "my_op()"), where torch cannot give one.
inline cudaStream_t current_cuda_stream(int32_t device, const char* caller) {
  using GetStream = AOTITorchError (*)(int32_t, void**);
  static const GetStream get_stream = [] {
    void* torch_cuda = dlopen("libtorch_cuda.so", RTLD_NOW | RTLD_NOLOAD);
    return torch_cuda != nullptr ? reinterpret_cast<GetStream>(
                                       dlsym(torch_cuda, "aoti_torch_get_current_cuda_stream"))
                                 : nullptr;
  }();
  if (get_stream == nullptr) {
    throw std::runtime_error(std::string(caller) +
                             ": cannot find aoti_torch_get_current_cuda_stream in a loaded "
                             "libtorch_cuda.so; is this a CUDA build of torch?");
  }
  void* stream = nullptr;
  if (get_stream(device, &stream) != TORCH_SUCCESS) {
    throw std::runtime_error(
        std::string(caller) +
        ": could not get the current CUDA stream of cuda:" + std::to_string(device));
  }
  return static_cast<cudaStream_t>(stream);
}

}  // namespace sum_double
