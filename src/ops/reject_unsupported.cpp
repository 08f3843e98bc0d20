// Optional: the kernel that turns away every tensor the CPU and CUDA kernels do not take (sparse,
// nested, quantized, MKLDNN, other devices) with a message that says which argument and how to
// convert it. Without this file the dispatcher refuses them in its own words.
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/headeronly/core/ScalarType.h>

#include <array>
#include <string>

#include "add_op.h"
#include "names.h"

namespace sum_double::op {
namespace {

using torch::headeronly::Layout;
using torch::headeronly::ScalarType;
using torch::stable::Tensor;

[[noreturn]] void not_dense(const char* name, const std::string& what, const char* conversion) {
  fail(kPrefix, "expected ", name, " to be a dense (torch.strided) tensor, but got ", what,
       "; convert it with ", conversion, " first");
}

// A strided nested tensor reports torch.strided, and asking its sizes fails (which older torch
// versions also print to stderr). Its dispatch keys set it apart: _has_compatible_shallow_copy_type
// compares them with a plain tensor's on the same device. Only asked on the way to an error.
bool is_strided_nested(const Tensor& t) {
  int32_t dtype = 0, device_type = 0, device_index = 0;
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &dtype));
  CHECK_SHIM(aoti_torch_get_device_type(t.get(), &device_type));
  CHECK_SHIM(aoti_torch_get_device_index(t.get(), &device_index));
  const int64_t size = 0, stride = 1;
  AtenTensorHandle plain = nullptr;
  CHECK_SHIM(aoti_torch_empty_strided(1, &size, &stride, dtype, device_type, device_index, &plain));
  std::array<StableIValue, 2> stack{torch::stable::detail::from(t),
                                    torch::stable::detail::from(Tensor(plain))};
  CHECK_SHIM(torch_call_dispatcher("aten::_has_compatible_shallow_copy_type", "", stack.data(),
                                   TORCH_ABI_VERSION));
  return !torch::stable::detail::to<bool>(stack[0]);
}

// Throws unless t (the argument called `name`) is a defined, dense tensor of a plain dtype. A
// tensor's layout tells sparse, MKLDNN and jagged nested tensors; its dtype, quantized ones.
// Strided nested tensors need is_strided_nested(), which only maybe_nested callers ask.
void check_dense(const Tensor& t, const char* name, bool maybe_nested) {
  check_defined(t, name);
  switch (t.layout()) {
    case Layout::Strided:
      break;
    case Layout::Sparse:
      not_dense(name, "a sparse tensor (torch.sparse_coo layout)", ".to_dense()");
    case Layout::SparseCsr:
      not_dense(name, "a sparse tensor (torch.sparse_csr layout)", ".to_dense()");
    case Layout::SparseCsc:
      not_dense(name, "a sparse tensor (torch.sparse_csc layout)", ".to_dense()");
    case Layout::SparseBsr:
      not_dense(name, "a sparse tensor (torch.sparse_bsr layout)", ".to_dense()");
    case Layout::SparseBsc:
      not_dense(name, "a sparse tensor (torch.sparse_bsc layout)", ".to_dense()");
    case Layout::Mkldnn:
      not_dense(name, "an MKLDNN tensor (torch._mkldnn layout)", ".to_dense()");
    case Layout::Jagged:
      not_dense(name, "a nested tensor (torch.jagged layout)", ".to_padded_tensor(0)");
    default:
      not_dense(name, "a tensor of another layout", ".to_dense()");
  }
  int32_t dtype = 0;
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &dtype));
  if (torch::headeronly::isQIntType(static_cast<ScalarType>(dtype))) {
    not_dense(name, "a quantized tensor (" + dtype_name(dtype) + ")", ".dequantize()");
  }
  if (maybe_nested && is_strided_nested(t)) {
    not_dense(name, "a nested tensor (torch.strided layout)", ".to_padded_tensor(0)");
  }
}

// The dispatcher calls this for every dispatch key without a kernel of its own (registered below),
// so it says what is wrong with the first argument at fault. Dense tensors of one device reach it
// only from a device this build has no kernel for.
Tensor add_unsupported(const Tensor& a, const Tensor& b, bool maybe_nested) {
  check_dense(a, "a", maybe_nested);
  check_dense(b, "b", maybe_nested);
  const Inputs inputs = check_inputs(a, b);
  fail(kPrefix, "expected tensors on cpu or cuda, but got a and b on ",
       device_name(inputs.device_type, inputs.device_index));
}

Tensor add_not_nested(const Tensor& a, const Tensor& b) { return add_unsupported(a, b, false); }
Tensor add_maybe_nested(const Tensor& a, const Tensor& b) { return add_unsupported(a, b, true); }

}  // namespace
}  // namespace sum_double::op

// Every tensor that the CPU and CUDA kernels do not take gets add_unsupported's message through
// two of the dispatcher's alias keys, each standing for every key without a kernel of its own: no
// list of keys to keep up with new layouts and devices (as registering one per key, even in a loop
// through the C shim, would need), and the only way to reach jagged tensors at all.
// CompositeExplicitAutograd: every backend (sparse, quantized, MKLDNN, devices without a kernel
// here) and calls with no tensor (None, None). CompositeImplicitAutogradNestedTensor: nested
// tensors, which the other does not cover; a jagged one is a Python subclass whose
// __torch_dispatch__ falls back to this key's kernel for ops it does not know.
STABLE_TORCH_LIBRARY_IMPL(sum_double, CompositeExplicitAutograd, m) {
  for (const char* name : sum_double::op::kOpNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_not_nested));
  }
}
STABLE_TORCH_LIBRARY_IMPL(sum_double, CompositeImplicitAutogradNestedTensor, m) {
  for (const char* name : sum_double::op::kOpNames) {
    m.impl(name, TORCH_BOX(&sum_double::op::add_maybe_nested));
  }
}
