// The CUDA launchers: enqueue out[i] = a[i] + b[i] on `stream`, over n contiguous elements of one
// dtype (the simplest call) or over an AddPlan (any strides, broadcasting, a dtype per operand).
//
// a, b, out  device pointers, n elements each of `dtype`, contiguous, on the current device
//            (cudaSetDevice); out may be neither a nor b, nor overlap them. Any alignment of the
//            type works; when all three are 16-byte aligned, a vectorised kernel runs. Results
//            are bit-identical to torch.add (half types: float32 sum, rounded once).
// n          0 or more (past 2^31 too); 0 enqueues nothing.
// stream     any stream of the current device; 0 is the legacy default stream.
// Returns    the launch's status (cudaGetLastError() after it). It does not synchronise: an error
//            while the kernel runs surfaces at the next synchronising call, as with any launch.
//            It never throws; it leaves no error pending once it has returned one.
// Link SumDouble::cuda (CMake): it brings the CUDA runtime, statically, and needs a driver that
// supports the CUDA major version the wheel was built with (13 for the release wheels). No torch
// is involved.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "sum_double/add_plan.h"
#include "sum_double/dtype.h"

namespace sum_double {

cudaError_t add_cuda(const void* a, const void* b, void* out, int64_t n, DType dtype,
                     cudaStream_t stream);

// All of a plan from plan_add() (sum_double/add_plan.h; its pointers are device pointers of the
// current device, each aligned as its type requires). Plain arrays take a vectorised kernel
// (when each pointer is aligned to 16 bytes' worth of the widest operand's elements), any other
// strides an N-d kernel that reads broadcast and strided inputs in place. Up to 2^38 elements.
// Returns as above, and cudaErrorInvalidValue, enqueuing nothing, for a plan with a dtype triple
// that plan_add() would refuse. The plan may be destroyed once this returns.
cudaError_t add_cuda(const AddPlan& plan, cudaStream_t stream);

}  // namespace sum_double
