// The out= form's checks and resize (out_arg.h), as torch.add's TensorIterator makes them: every
// check first (device, dtype, memory overlap, an input that would have to be resized), then the
// resize.
#include "out_arg.h"

#include <torch/csrc/stable/ops.h>

#include <algorithm>
#include <array>

#include "layout.h"
#include "names.h"

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// The bytes a tensor's elements span, from its first element on (strides are never negative).
struct Span {
  const char* begin;
  const char* end;
  bool dense;  // non-overlapping and dense: the span holds each element once and nothing else
};

Span span_of(const Tensor& t, const int64_t* sizes, const int64_t* strides, int64_t dim) {
  const char* begin = static_cast<const char*>(t.data_ptr());
  int64_t last = 0;
  for (int64_t d = 0; d < dim; ++d) {
    if (sizes[d] == 0) return {begin, begin, true};
    last += (sizes[d] - 1) * strides[d];
  }
  const int64_t item = static_cast<int64_t>(t.element_size());
  return {begin, begin + (last + 1) * item, is_non_overlapping_and_dense(sizes, strides, dim)};
}

// c10's get_overlap_status, by address: out may be an input itself (each element read, then
// written), but not part of one. Where either is not dense torch cannot tell, and lets it be.
// The input's sizes and strides are those check_inputs read.
bool overlaps_partly(const Tensor& out, const Facts& fo, const Tensor& t, const int64_t* sizes,
                     const int64_t* strides, int64_t dim) {
  const Span so = span_of(out, fo.sizes, fo.strides, fo.dim), st = span_of(t, sizes, strides, dim);
  if (so.begin == so.end || st.begin == st.end || !so.dense || !st.dense) return false;
  if (so.begin == st.begin && so.end == st.end) {
    return fo.dim != dim || !std::equal(fo.strides, fo.strides + fo.dim, strides);
  }
  return so.begin < st.end && st.begin < so.end;
}

// Resizes out to the result's shape, with the strides torch.add gives a new result (torch's
// resize_output, less its warning: that reaches Python only from the public call, _out.py).
void resize(Tensor& out, const Inputs& in) {
  const torch::headeronly::IntHeaderOnlyArrayRef sizes(in.sizes, in.dim);
  std::array<StableIValue, 3> stack{torch::stable::detail::from(out),
                                    torch::stable::detail::from(sizes),
                                    torch::stable::detail::from(std::nullopt)};
  CHECK_SHIM(torch_call_dispatcher("aten::resize_", "", stack.data(), TORCH_ABI_VERSION));
  (void)torch::stable::detail::to<Tensor>(stack[0]);  // the returned handle is ours to release
  std::array<int64_t, kMaxDims> strides;
  torch_add_strides(in, strides.data());
  const torch::headeronly::IntHeaderOnlyArrayRef stride_ref(strides.data(), in.dim);
  std::array<StableIValue, 4> restride{
      torch::stable::detail::from(out), torch::stable::detail::from(sizes),
      torch::stable::detail::from(stride_ref), torch::stable::detail::from(std::nullopt)};
  CHECK_SHIM(torch_call_dispatcher("aten::as_strided_", "", restride.data(), TORCH_ABI_VERSION));
  (void)torch::stable::detail::to<Tensor>(restride[0]);
}

}  // namespace

Fill prepare_out(const Tensor& a, const Tensor& b, const Inputs& in, Tensor& out) {
  Facts fo = facts_of(out, "out");
  SUM_DOUBLE_CHECK(fo.device_type == in.device_type && fo.device_index == in.device_index, kPrefix,
                   "expected out on ", device_name(in.device_type, in.device_index),
                   ", the device of a and b, but got out on ",
                   device_name(fo.device_type, fo.device_index));
  SUM_DOUBLE_CHECK(is_floating_or_complex(fo.dtype), kPrefix,
                   "expected out to be a floating or complex tensor, which the result (",
                   dtype_name(in.out_torch_dtype), ") can be cast to, but got ",
                   dtype_name(fo.dtype),
                   "; pass one of the result's dtype, e.g. torch.empty_like(out, dtype=",
                   dtype_name(in.out_torch_dtype), ")");
  for (int64_t d = 0; d < fo.dim; ++d) {
    SUM_DOUBLE_CHECK(fo.strides[d] != 0 || fo.sizes[d] <= 1, kPrefix,
                     "expected out to hold each of its elements once, but its dim ", d,
                     " has stride 0 (an expanded tensor?); pass out.clone() or a new tensor");
  }
  const auto check_apart = [&](const Tensor& t, const int64_t* sizes, const int64_t* strides,
                               int64_t dim, const char* name) {
    SUM_DOUBLE_CHECK(!overlaps_partly(out, fo, t, sizes, strides, dim), kPrefix,
                     "expected out to be ", name, " itself or apart from it, but out and ", name,
                     " share part of their memory; pass ", name, ".clone()");
  };
  check_apart(a, in.a_sizes, in.a_strides, in.a_dim, "a");
  check_apart(b, in.b_sizes, in.b_strides, in.b_dim, "b");
  if (fo.dim != in.dim || !std::equal(in.sizes, in.sizes + in.dim, fo.sizes)) {
    // An input given as out cannot be resized under itself (torch.add's words). The same tensor:
    // torch hands out one sizes array per tensor.
    for (const auto& [sizes, name] : {std::pair{in.a_sizes, "a"}, std::pair{in.b_sizes, "b"}}) {
      SUM_DOUBLE_CHECK(fo.sizes != sizes, kPrefix, "output with shape ", shape_of(fo.sizes, fo.dim),
                       " doesn't match the broadcast shape ", shape_of(in.sizes, in.dim),
                       ": out is ", name,
                       ", which cannot be resized while it is read; pass a "
                       "new tensor as out");
    }
    resize(out, in);
  }
  return fo.dtype == in.out_torch_dtype ? Fill::kInPlace : Fill::kCopy;
}

Tensor copy_result(Tensor& out, const Tensor& result) {
  torch::stable::copy_(out, result);
  return out;
}

}  // namespace sum_double::op
