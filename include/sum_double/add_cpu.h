// The CPU launcher: out[i] = a[i] + b[i] for 0 <= i < n, on the calling thread.
//
// a, b, out  n elements each of `dtype`, contiguous, aligned as that type requires (no more);
//            out may be neither a nor b, nor overlap them. Half types are added in float32 and
//            rounded once (to nearest even), as torch.add does: results are bit-identical to it.
// n          0 or more; 0 touches no memory.
// Errors     none: it neither throws nor allocates. Thread-safe; to use several threads, split
//            [0, n) and call it once per piece (sum-double's op does, over torch's thread pool).
// Link SumDouble::cpu (CMake) for it; no CUDA and no torch are involved.
#pragma once

#include <cstdint>

#include "sum_double/dtype.h"

namespace sum_double {

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype);

}  // namespace sum_double
