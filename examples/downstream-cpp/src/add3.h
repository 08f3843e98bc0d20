// What add3's CPU and CUDA kernels share: the input checks, and the buffers they launch on.
#pragma once

#include <sum_double/dtype.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>

namespace downstream_demo {

// a, b and c, contiguous, of one dtype (one the launchers take), one shape and one device; ab (for
// a + b) and out, new and alike; n, the element count.
struct Add3Operands {
  sum_double::DType dtype;
  int64_t n;
  torch::stable::Tensor a, b, c, ab, out;
};

// Throws std::runtime_error (RuntimeError in Python), naming the argument at fault.
Add3Operands add3_operands(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                           const torch::stable::Tensor& c);

}  // namespace downstream_demo
