// What the CPU and CUDA implementations of torch.ops.sum_double.add share: input validation and
// output allocation, on the LibTorch stable ABI.
#pragma once

#include <torch/csrc/stable/tensor.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sum_double/dtype.h"

namespace sum_double::op {

// Message pieces: text as it is, integers in decimal. Plain string building rather than iostreams,
// which crash in a module that carries its own static libstdc++ (docs/limits.md; torch's
// stable headers still use them in their own error paths).
inline void append(std::string& message, const char* piece) { message += piece; }
inline void append(std::string& message, const std::string& piece) { message += piece; }
template <typename Int, std::enable_if_t<std::is_integral_v<Int>, int> = 0>
void append(std::string& message, Int piece) {
  message += std::to_string(piece);
}

// Throws std::runtime_error (RuntimeError in Python) with exactly these words. STD_TORCH_CHECK
// would prefix the C++ function, file and line, which tell a Python user nothing.
template <typename... Args>
[[noreturn]] void fail(const Args&... args) {
  std::string message;
  (append(message, args), ...);
  throw std::runtime_error(message);
}

// The message is only built when the check fails, so checks cost nothing on the hot path.
#define SUM_DOUBLE_CHECK(cond, ...)                   \
  do {                                                \
    if (!(cond)) ::sum_double::op::fail(__VA_ARGS__); \
  } while (false)

// What check_inputs learned about the inputs, so that no later step asks torch again: every
// question is a call through the C shim, and at small sizes they add up to more than the loop.
struct Inputs {
  DType dtype;           // the launcher's dtype
  int32_t torch_dtype;   // the same, in the C shim's code (for allocation)
  int32_t device_type;   // the C shim's code
  int32_t device_index;  // -1 on the CPU
  const int64_t* sizes;  // a's, borrowed: valid while a lives
  int64_t dim;
  int64_t numel;
};

// Bytes per element.
constexpr int64_t element_size(DType dtype) {
  return dtype == DType::kFloat64 ? 8 : dtype == DType::kFloat32 ? 4 : 2;
}

// Throws (a Python RuntimeError) naming the argument at fault unless a and b are dense tensors of
// one supported dtype, one shape and one device.
Inputs check_inputs(const torch::stable::Tensor& a, const torch::stable::Tensor& b);

// a, b and the output as three arrays of n elements in one element order, which is all the
// launchers understand. The output takes the inputs' layout when they share one dense layout
// (contiguous, transposed, channels-last, ...), as torch.add does, so no input is copied; else it
// is contiguous and the inputs are copied into contiguous ones. The fake kernel (_ops.py) applies
// the same rule, so torch.compile sees the strides this returns.
struct FlatOperands {
  torch::stable::Tensor a, b, out;
};
FlatOperands flat_operands(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                           const Inputs& inputs);

}  // namespace sum_double::op
