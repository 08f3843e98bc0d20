// The CPU launchers, on the calling thread: out[i] = a[i] + b[i] over n contiguous elements of one
// dtype (the simplest call), or over an AddPlan (any strides, broadcasting, a dtype per operand).
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

#include "sum_double/add_plan.h"
#include "sum_double/dtype.h"

namespace sum_double {

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype);

// Elements [begin, end) of a plan from plan_add() (sum_double/add_plan.h), numbered in the plan's
// order (out's memory order); [0, plan.numel) is all of them, and indices outside it are
// ignored. Pieces may run on several threads at once. Same-dtype rows of stride 1 run the loops
// above; the rest runs baseline loops. A plan not made by plan_add() is not supported.
void add_cpu(const AddPlan& plan, int64_t begin, int64_t end);

// The loops add_cpu runs on this CPU: "avx2+f16c", "aarch64" or "baseline".
const char* add_cpu_isa();

}  // namespace sum_double
