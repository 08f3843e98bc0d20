// CPU launcher: out[i] = a[i] + b[i] for 0 <= i < n, on the calling thread (out must not overlap
// a or b).
// Inputs and output are dense arrays of `dtype`; half types are added in float32 and rounded once,
// as torch.add does. Callers parallelise by splitting [0, n).
#pragma once

#include <cstdint>

#include "sum_double/dtype.h"

namespace sum_double {

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype);

}  // namespace sum_double
