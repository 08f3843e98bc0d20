// What the CPU and CUDA implementations of torch.ops.sum_double.add share: input validation and
// output allocation, on the LibTorch stable ABI.
#pragma once

#include <torch/csrc/stable/tensor.h>

#include <sstream>
#include <stdexcept>

#include "sum_double/dtype.h"

namespace sum_double::op {

// Throws std::runtime_error (RuntimeError in Python) with exactly these words. STD_TORCH_CHECK
// would prefix the C++ function, file and line, which tell a Python user nothing.
template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  std::ostringstream message;
  (message << ... << args);
  throw std::runtime_error(message.str());
}

// The message is only built when the check fails, so checks cost nothing on the hot path.
#define SUM_DOUBLE_CHECK(cond, ...)                   \
  do {                                                \
    if (!(cond)) ::sum_double::op::fail(__VA_ARGS__); \
  } while (false)

// Throws (a Python RuntimeError) naming the argument at fault unless a and b are dense tensors of
// one supported dtype, one shape and one device. Returns the launcher's dtype.
DType check_inputs(const torch::stable::Tensor& a, const torch::stable::Tensor& b);

// A new contiguous tensor with a's shape, dtype and device.
torch::stable::Tensor new_output(const torch::stable::Tensor& a);

// The launchers read dense arrays; strided inputs are copied once into a dense one.
torch::stable::Tensor dense(const torch::stable::Tensor& t);

}  // namespace sum_double::op
