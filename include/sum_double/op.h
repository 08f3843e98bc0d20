// Calling the registered op torch.ops.sum_double.add from another extension's C++, through
// PyTorch's dispatcher on the LibTorch stable ABI (torch >= 2.10). The caller gets everything the
// op does (input checks, CPU or CUDA, torch's current stream, autograd when a tensor needs grad)
// and, built with -DTORCH_TARGET_VERSION as sum-double is, stays one binary for every torch >=
// 2.10. Header-only: it needs only torch (libtorch_cpu) to build.
//
// The op exists once sum-double's op library (libsum_double_ops.so) is loaded: in Python by
// `import sum_double`; in a C++ program without Python by linking SumDouble::ops, or by dlopen-ing
// the library (`python -m sum_double --library` prints its path). Otherwise, and for any failure
// of the op itself, add() throws std::runtime_error; for a missing op the message names both ways.
#pragma once

#include <link.h>
#include <torch/csrc/stable/c/shim.h>
#include <torch/csrc/stable/stableivalue_conversions.h>
#include <torch/csrc/stable/tensor.h>
#include <torch/headeronly/version.h>

#include <array>
#include <cstring>
#include <stdexcept>
#include <string>

#include "sum_double/op_name.h"

namespace sum_double {
namespace detail {

// Whether sum-double's op library, which registers the op, is loaded in this process (Python's
// module loads it too). Asked only after a failed call, to say why it failed.
inline bool op_library_loaded() {
  return dl_iterate_phdr(
             [](dl_phdr_info* info, size_t, void*) {
               return info->dlpi_name != nullptr &&
                              std::strstr(info->dlpi_name, "/libsum_double_ops.so") != nullptr
                          ? 1
                          : 0;
             },
             nullptr) != 0;
}

}  // namespace detail

// The op as the dispatcher names it: "sum_double::add".
inline constexpr const char kName[] = "sum_double::" SUM_DOUBLE_OP_NAME;

// sum_double::add(a, b): a + b as torch.ops.sum_double.add computes it: torch.add's semantics for
// floating tensors (float16, bfloat16, float32, float64; promotion, broadcasting, torch.add's
// strides), both on one device; a new tensor. Throws std::runtime_error on bad input or when the op
// is not registered. The op's own message comes along when this is compiled against torch >= 2.14's
// headers and runs on torch >= 2.13; otherwise the message names the op and the failed call.
inline torch::stable::Tensor SUM_DOUBLE_OP(const torch::stable::Tensor& a,
                                           const torch::stable::Tensor& b) {
  std::array<StableIValue, 2> stack{torch::stable::detail::from(a), torch::stable::detail::from(b)};
  try {
// torch's check macros put __FILE__ in their message: name this header, not the path it had on
// the build machine (a pip build environment that no longer exists, and a different binary each
// build). The includer's own line numbers are unaffected; the number is the next line's own.
#line 60 "sum_double/op.h"
#ifdef STABLE_TORCH_ERROR_CODE_CHECK
    STABLE_TORCH_ERROR_CODE_CHECK(
        torch_call_dispatcher(kName, "", stack.data(), TORCH_ABI_VERSION));
#else
    TORCH_ERROR_CODE_CHECK(torch_call_dispatcher(kName, "", stack.data(), TORCH_ABI_VERSION));
#endif
  } catch (const std::exception& e) {
    if (!detail::op_library_loaded()) {
      throw std::runtime_error(
          std::string(kName) +
          " is not registered with PyTorch's dispatcher: sum-double's op library "
          "(libsum_double_ops.so) is not loaded in this process. In Python, `import sum_double` "
          "first; in C++, link SumDouble::ops or dlopen the library (`python -m sum_double "
          "--library` prints its path). torch: " +
          std::string(e.what()));
    }
    // torch's older check says only which call failed, in this header's text: name the op.
    if (std::strstr(e.what(), kName) == nullptr &&
        std::strstr(e.what(), SUM_DOUBLE_OP_CALLER) == nullptr) {
      throw std::runtime_error(std::string(kName) + ": " + e.what());
    }
    throw;
  }
  return torch::stable::detail::to<torch::stable::Tensor>(stack[0]);
}

}  // namespace sum_double
