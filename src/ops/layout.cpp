// The output layout of torch.ops.sum_double.add: the strides torch.add gives its result, worked
// out as TensorIterator does, and the strides the inputs are read with over the output's shape.
// Integer arithmetic on sizes and strides only: no call into torch.
#include "layout.h"

#include <algorithm>
#include <array>

#include <torch/headeronly/core/DeviceType.h>

namespace sum_double::op {
namespace {

using torch::headeronly::DeviceType;

// TensorIterator's sort of dims (perm[0] fastest), by a comparison that may be undecided (0):
// then the order stays as it is.
template <typename Compare>
void insertion_sort(int64_t* perm, int64_t dim, const Compare& should_swap) {
  for (int64_t i = 1; i < dim; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int comparison = should_swap(perm[d0], perm[d1]);
      if (comparison > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (comparison < 0) {
        break;
      }
    }
  }
}

// c10's contiguity tests, dims taken in the given order (fastest first).
bool is_contiguous_in(const int64_t* sizes, const int64_t* strides, const int64_t* order,
                      int64_t dim) {
  int64_t expected = 1;
  for (int64_t i = 0; i < dim; ++i) {
    const int64_t d = order[i];
    if (sizes[d] != 1) {
      if (strides[d] != expected) return false;
      expected *= sizes[d];
    }
  }
  return true;
}

bool is_contiguous(const int64_t* sizes, const int64_t* strides, int64_t dim) {
  std::array<int64_t, kMaxDims> order;
  for (int64_t i = 0; i < dim; ++i) order[i] = dim - 1 - i;
  return is_contiguous_in(sizes, strides, order.data(), dim);
}

bool is_channels_last(const int64_t* sizes, const int64_t* strides, int64_t dim) {
  static constexpr int64_t kOrder[4] = {1, 3, 2, 0};  // C fastest, then W, H, N
  return dim == 4 && is_contiguous_in(sizes, strides, kOrder, dim);
}

// The strides of t.to(dtype) (_to_copy, preserve_format): t's own when it is non-overlapping and
// dense, else dense ones in the order of t's strides (at::infer_dense_strides, whose sort leaves
// stride-0 dims where they are). Returns `out`, filled.
const int64_t* strides_of_copy(const int64_t* sizes, const int64_t* strides, int64_t dim,
                               int64_t* out) {
  if (is_non_overlapping_and_dense(sizes, strides, dim)) {
    std::copy(strides, strides + dim, out);
    return out;
  }
  std::array<int64_t, kMaxDims> perm;
  for (int64_t i = 0; i < dim; ++i) perm[i] = dim - 1 - i;
  const auto should_swap = [&](int64_t d0, int64_t d1) {
    if (strides[d0] == 0 || strides[d1] == 0) return 0;
    if (strides[d0] != strides[d1]) return strides[d0] < strides[d1] ? -1 : 1;
    return sizes[d0] > sizes[d1] ? 1 : 0;
  };
  insertion_sort(perm.data(), dim, should_swap);
  int64_t stride = 1;
  for (int64_t i = 0; i < dim; ++i) {
    out[perm[i]] = stride;
    if (sizes[perm[i]] > 1) stride *= sizes[perm[i]];
  }
  return out;
}

}  // namespace

// Empty, or, size-1 dims aside, the strides sorted ascending are 1, size, size * size, ...
bool is_non_overlapping_and_dense(const int64_t* sizes, const int64_t* strides, int64_t dim) {
  std::array<int64_t, kMaxDims> perm;
  int64_t n = 0;
  for (int64_t d = 0; d < dim; ++d) {
    if (sizes[d] == 0) return true;  // empty tensors count as contiguous, hence dense
    if (sizes[d] >= 2) perm[n++] = d;
  }
  std::sort(perm.begin(), perm.begin() + n,
            [&](int64_t x, int64_t y) { return strides[x] < strides[y]; });
  int64_t expected = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (strides[perm[i]] != expected) return false;
    expected *= sizes[perm[i]];
  }
  return true;
}

// The strides of an input as it is read over out's shape: 0 along its missing leading dims and
// along its size-1 dims that out broadcasts (TensorIterator's compute_strides).
void broadcast_strides(const int64_t* sizes, const int64_t* strides, int64_t dim, const Inputs& in,
                       int64_t* result) {
  const int64_t lead = in.dim - dim;
  for (int64_t d = 0; d < in.dim; ++d) {
    result[d] = d < lead || (sizes[d - lead] == 1 && in.sizes[d] != 1) ? 0 : strides[d - lead];
  }
}

// The output strides torch.add picks (TensorIterator): contiguous, channels-last or the inputs'
// own strides when both inputs have out's shape and share that layout; otherwise out's dims
// sorted by the inputs' strides (a's first, b's to break ties; broadcast dims ignored), out
// dense in that order.
void torch_add_strides(const Inputs& in, int64_t* out) {
  const int64_t dim = in.dim;
  const auto contiguous = [&] {  // as empty() makes it: size-0 dims count as 1
    int64_t stride = 1;
    for (int64_t d = dim; d-- > 0;) {
      out[d] = stride;
      stride *= std::max<int64_t>(in.sizes[d], 1);
    }
  };
  // On the CPU, torch.add first copies an input of another dtype with .to(), and the copy's
  // strides, not the input's, decide the result's; on CUDA it converts in registers.
  std::array<int64_t, kMaxDims> a_copy, b_copy;
  const int64_t* as = in.a_strides;
  const int64_t* bs = in.b_strides;
  if (static_cast<DeviceType>(in.device_type) == DeviceType::CPU) {
    if (in.a_dtype != in.out_dtype) as = strides_of_copy(in.a_sizes, as, in.a_dim, a_copy.data());
    if (in.b_dtype != in.out_dtype) bs = strides_of_copy(in.b_sizes, bs, in.b_dim, b_copy.data());
  }
  const bool same_shape = in.a_dim == dim && in.b_dim == dim &&
                          std::equal(in.a_sizes, in.a_sizes + dim, in.sizes) &&
                          std::equal(in.b_sizes, in.b_sizes + dim, in.sizes);
  if (same_shape) {
    if (in.numel == 0 || (is_contiguous(in.sizes, as, dim) && is_contiguous(in.sizes, bs, dim))) {
      return contiguous();
    }
    if (is_channels_last(in.sizes, as, dim) && is_channels_last(in.sizes, bs, dim)) {
      const int64_t* s = in.sizes;  // c10's get_channels_last_strides_2d
      out[1] = 1;
      out[3] = s[1];
      out[2] = out[3] * s[3];
      out[0] = out[2] * s[2];
      return;
    }
    if (std::equal(as, as + dim, bs) && is_non_overlapping_and_dense(in.sizes, as, dim)) {
      std::copy(as, as + dim, out);
      return;
    }
  }
  // TensorIterator's reorder_dimensions: from row-major order, by the inputs' strides.
  std::array<int64_t, kMaxDims> a_read, b_read, perm;
  broadcast_strides(in.a_sizes, as, in.a_dim, in, a_read.data());
  broadcast_strides(in.b_sizes, bs, in.b_dim, in, b_read.data());
  const auto should_swap = [&](int64_t d0, int64_t d1) {
    for (const auto* st : {&a_read, &b_read}) {
      const int64_t s0 = (*st)[d0], s1 = (*st)[d1];
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 < s1 ? -1 : 1;
      if (in.sizes[d0] > in.sizes[d1]) return 1;
    }
    return 0;
  };
  for (int64_t i = 0; i < dim; ++i) perm[i] = dim - 1 - i;
  insertion_sort(perm.data(), dim, should_swap);
  bool row_major = true;
  for (int64_t i = 0; i < dim; ++i) row_major = row_major && perm[i] == dim - 1 - i;
  if (row_major) return contiguous();
  int64_t stride = 1;  // compatible_stride: dense in perm's order (size-0 dims included as 0)
  for (int64_t i = 0; i < dim; ++i) {
    out[perm[i]] = stride;
    stride *= in.sizes[perm[i]];
  }
}

}  // namespace sum_double::op
