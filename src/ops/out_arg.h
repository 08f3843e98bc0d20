// What the out= form adds to the op (out_arg.cpp): out checked against a and b, resized as
// torch.add resizes it, and filled either in place by the launchers or by copying the result in.
#pragma once

#include <torch/csrc/stable/tensor.h>

#include "add_op.h"

namespace sum_double::op {

// How out gets its values.
enum class Fill {
  kInPlace,  // out has the result's dtype: the launchers write it, whatever its strides
  kCopy,     // another dtype: the result is computed, then copied in (torch.add's cast)
};

// Throws naming out unless torch.add would take it for these inputs (a floating or complex
// dtype, their device, no element twice, no partial overlap with a or b, not an input of another
// shape); resizes it to the result's shape where it differs, with torch.add's strides.
Fill prepare_out(const torch::stable::Tensor& a, const torch::stable::Tensor& b, const Inputs& in,
                 torch::stable::Tensor& out);

// Copies `result` into out (torch's copy_: it casts) and returns out.
torch::stable::Tensor copy_result(torch::stable::Tensor& out, const torch::stable::Tensor& result);

}  // namespace sum_double::op
