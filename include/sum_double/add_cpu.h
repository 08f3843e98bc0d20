// The CPU launcher: out[i] = a[i] + b[i] for 0 <= i < n, on the calling thread.
//
// a, b, out  n elements each of `dtype`, contiguous, aligned as that type requires (no more);
//            out may be neither a nor b, nor overlap them. Half types are added in float32 and
//            rounded once (to nearest even), as torch.add does: results are bit-identical to it,
//            except which NaN a NaN result is (sign and payload), which torch itself varies.
// n          0 or more; 0 touches no memory.
// Errors     none: it neither throws nor allocates. Thread-safe; to use several threads, split
//            [0, n) and call it once per piece (sum-double's op does, over torch's thread pool).
// Loops      chosen at the first call for the CPU it runs on: AVX2 with F16C's float16
//            conversions on x86-64 CPUs that have them, the hardware's on AArch64, otherwise
//            baseline code (float16 converted in integer arithmetic). SUM_DOUBLE_CPU_BASELINE=1 in
//            the environment at that call picks the baseline loops anywhere, e.g. to test them.
// Link SumDouble::cpu (CMake) for it; no CUDA and no torch are involved.
#pragma once

#include <cstdint>

#include "sum_double/dtype.h"

namespace sum_double {

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype);

// The loops add_cpu runs on this CPU: "avx2+f16c", "aarch64" or "baseline".
const char* add_cpu_isa();

}  // namespace sum_double
