// How the op lays out its output and reads its inputs (layout.cpp): torch-free arithmetic on
// the sizes and strides that check_inputs() collected.
#pragma once

#include <cstdint>

#include "add_op.h"

namespace sum_double::op {

// The strides of an input (sizes, strides, dim) as it is read over out's shape: 0 along its
// missing leading dims and along its size-1 dims that out broadcasts.
void broadcast_strides(const int64_t* sizes, const int64_t* strides, int64_t dim, const Inputs& in,
                       int64_t* result);

// The strides torch.add gives its result for these inputs, in.dim of them, into `out`.
void torch_add_strides(const Inputs& in, int64_t* out);

// c10's is_non_overlapping_and_dense: every element once, no gaps, in some order of the dims.
bool is_non_overlapping_and_dense(const int64_t* sizes, const int64_t* strides, int64_t dim);

}  // namespace sum_double::op
