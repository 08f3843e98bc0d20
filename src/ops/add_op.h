// What the CPU and CUDA implementations of torch.ops.sum_double.add share (add_op.cpp): input
// validation and output allocation, on the LibTorch stable ABI.
#pragma once

#include <torch/csrc/stable/tensor.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "op_definition.h"
#include "sum_double/add_plan.h"
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

// None arrives as an undefined tensor, on which every other query fails with torch's words: both
// checkers (check_inputs, and reject_unsupported.cpp's for the keys without a kernel) ask first.
inline void check_defined(const torch::stable::Tensor& t, const char* name) {
  SUM_DOUBLE_CHECK(t.defined(), kPrefix, "expected ", name,
                   " to be a Tensor, but got None; pass a tensor");
}

// Newer headers keep torch's own message (e.g. "CUDA out of memory") in the exception, when the
// running torch can give it (library_facts.h); older ones only name the failed call.
#ifdef STABLE_TORCH_ERROR_CODE_CHECK
#define CHECK_SHIM(call) STABLE_TORCH_ERROR_CODE_CHECK(call)
#else
#define CHECK_SHIM(call) TORCH_ERROR_CODE_CHECK(call)
#endif

// Dims an operand may have: torch's own limit for a tensor (c10 allows 64 in TensorIterator-based
// ops such as torch.add).
constexpr int64_t kMaxDims = 64;

// What the checks compare, each asked of torch once per tensor (facts_of).
struct Facts {
  int32_t layout = 0, dtype = 0, device_type = 0, device_index = 0;
  int64_t* sizes = nullptr;
  int64_t* strides = nullptr;
  int64_t dim = 0;
};

// Throws naming `name` unless t is a defined, dense (torch.strided) tensor.
Facts facts_of(const torch::stable::Tensor& t, const char* name);

// What check_inputs learned about the inputs, so that no later step asks torch again: every
// question is a call through the C shim, and at small sizes they add up to more than the loop.
struct Inputs {
  DType a_dtype, b_dtype, out_dtype;  // the launchers' dtypes; out's is torch.result_type(a, b)
  int32_t out_torch_dtype;            // out's, in the C shim's code (for allocation)
  int32_t device_type;                // the C shim's code
  int32_t device_index;               // -1 on the CPU
  const int64_t* a_sizes;             // borrowed from a and b: valid while they live
  const int64_t* b_sizes;
  const int64_t* a_strides;
  const int64_t* b_strides;
  int64_t a_dim, b_dim;
  int64_t dim;              // out's: the larger of a_dim and b_dim
  int64_t sizes[kMaxDims];  // out's shape: a's and b's broadcast together
  int64_t numel;
};

// Throws (a Python RuntimeError) naming the argument at fault unless a and b are dense floating
// tensors on one device whose shapes broadcast.
Inputs check_inputs(const torch::stable::Tensor& a, const torch::stable::Tensor& b);

// The output, allocated with the strides torch.add gives its result (TensorIterator's rule: the
// inputs' common layout when they have one, else their dims in the order of their strides), or
// `into` as it is (out=, of the result's shape and dtype); and the launchers' plan over it, reading
// a and b in place (broadcast dims have stride 0). The fake
// kernel (_layout.py) applies the same rule (not torch.add's meta function, which differs in the
// strides of size-1 dims), so torch.compile sees the same strides.
struct Operands {
  torch::stable::Tensor out;
  AddPlan plan;
};
Operands make_operands(const torch::stable::Tensor& a, const torch::stable::Tensor& b,
                       const Inputs& inputs, const torch::stable::Tensor* into = nullptr);

}  // namespace sum_double::op
