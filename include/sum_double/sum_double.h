// sum-double's launcher API in one include: raw pointers, an element count (or an AddPlan of
// sizes and strides), dtypes and, on the GPU, a stream; no torch types, so any C++ can call them,
// whatever torch (if any) it runs with. add_cuda() comes with SumDouble::cuda, which defines
// SUM_DOUBLE_HAS_CUDA (its header needs CUDA's). To call the registered PyTorch op instead, include
// <sum_double/op.h>. combine() is the op's arithmetic on one element, for kernels of your own.
#pragma once

#include "sum_double/add_cpu.h"
#include "sum_double/add_plan.h"
#include "sum_double/combine.h"
#include "sum_double/dtype.h"

#if defined(SUM_DOUBLE_HAS_CUDA)
#include "sum_double/add_cuda.h"
#endif
