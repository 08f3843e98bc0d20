// CUDA launcher: enqueues out[i] = a[i] + b[i] for 0 <= i < n on `stream` (the current device
// must own the pointers; out must not overlap a or b). Returns the launch status; it does not
// synchronise, so errors raised while the kernel runs surface at the next synchronising call, as
// with any CUDA launch.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "sum_double/dtype.h"

namespace sum_double {

cudaError_t add_cuda(const void* a, const void* b, void* out, int64_t n, DType dtype,
                     cudaStream_t stream);

}  // namespace sum_double
