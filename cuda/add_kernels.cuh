// The elementwise-add kernels as templates. add_cuda.cu instantiates the configuration it ships;
// benchmarks/experiments/kernel_variants.cu instantiates others to measure them against it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "sum_double/add_plan.h"
#include "sum_double/combine.h"

namespace sum_double::kernels {

inline constexpr int kMaxStridedDims = AddPlan::kMaxDims;

// What out's dtype is added in: float32 for every dtype but float64, as torch's opmath_type.
template <typename O>
using Math = std::conditional_t<std::is_same_v<O, double>, double, float>;

__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(double x) { return __double2float_rn(x); }

template <typename T>
__device__ __forceinline__ double to_double(T x) {
  return static_cast<double>(to_float(x));
}
__device__ __forceinline__ double to_double(double x) { return x; }

// Half types are added in float32 and rounded once (to nearest even), as torch.add does.
template <typename O>
__device__ __forceinline__ O round_to(Math<O> x) {
  if constexpr (std::is_same_v<O, __half>) {
    return __float2half_rn(x);
  } else if constexpr (std::is_same_v<O, __nv_bfloat16>) {
    return __float2bfloat16_rn(x);
  } else {
    return x;
  }
}

// An input element converted to out's dtype (rounded, when that is narrower, through float32 as
// torch's casts do), in out's Math type. Exact for every type torch.result_type picks.
template <typename O, typename A>
__device__ __forceinline__ Math<O> load_as(A x) {
  if constexpr (std::is_same_v<O, double>) {
    return to_double(x);
  } else if constexpr (std::is_same_v<O, float> || std::is_same_v<O, A>) {
    return to_float(x);
  } else {
    return to_float(round_to<O>(to_float(x)));
  }
}

template <typename A, typename B, typename O>
__device__ __forceinline__ O add_as(A a, B b) {
  return round_to<O>(combine(load_as<O>(a), load_as<O>(b)));
}

template <typename T>
__device__ __forceinline__ T add_one(T a, T b) {
  return add_as<T, T, T>(a, b);
}

// kElems consecutive elements of T, aligned to their size, so that one access moves them all
// (16 bytes: one 128-bit load or store).
template <typename T, int kElems>
struct alignas(sizeof(T) * kElems) Pack {
  static constexpr int kSize = kElems;
  T v[kElems];
};
template <typename T>
using Pack16 = Pack<T, 16 / sizeof(T)>;

// Elements per pack for operands of types A, B and O: the widest moves 16 bytes per access.
template <typename A, typename B, typename O>
inline constexpr int kPackElems = 16 / std::max({sizeof(A), sizeof(B), sizeof(O)});

// out[i] = a[i] + b[i] for i < n, on arrays each aligned to its own Pack<T, kElems>. Each thread
// adds kUnroll packs, kThreads apart (so a warp's accesses stay contiguous), and issues all of
// their loads before the first add. Block 0 also adds the tail that does not fill a pack, so one
// launch covers any n. Index is int32 whenever n allows it: 64-bit index arithmetic costs
// registers and instructions on the hot path.
template <typename A, typename B, typename O, typename Index, int kThreads, int kUnroll, int kElems>
__global__ void __launch_bounds__(kThreads)
    add_kernel(const A* __restrict__ a, const B* __restrict__ b, O* __restrict__ out, Index n) {
  const auto* pa = reinterpret_cast<const Pack<A, kElems>*>(a);
  const auto* pb = reinterpret_cast<const Pack<B, kElems>*>(b);
  auto* po = reinterpret_cast<Pack<O, kElems>*>(out);
  const Index packs = n / kElems;
  const Index first = static_cast<Index>(blockIdx.x) * (kThreads * kUnroll) + threadIdx.x;

  Pack<A, kElems> x[kUnroll];
  Pack<B, kElems> y[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const Index i = first + u * kThreads;
    if (i < packs) {
      x[u] = pa[i];
      y[u] = pb[i];
    }
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const Index i = first + u * kThreads;
    if (i < packs) {
      Pack<O, kElems> r;
#pragma unroll
      for (int k = 0; k < kElems; ++k) r.v[k] = add_as<A, B, O>(x[u].v[k], y[u].v[k]);
      po[i] = r;
    }
  }

  if constexpr (kElems > 1) {
    const Index tail = packs * kElems + threadIdx.x;
    if (blockIdx.x == 0 && tail < n) out[tail] = add_as<A, B, O>(a[tail], b[tail]);
  }
}

// ---- Any strides: the N-d path (broadcast inputs, views, layouts that differ) ------------------

// n / d and n % d for 0 <= n < 2^31 without a division instruction: a multiply-high and a shift
// with a magic number fixed per divisor (Granlund and Montgomery), as torch's IntDivider does.
struct Divider32 {
  uint32_t divisor = 1, magic = 1, shift = 0;
  Divider32() = default;
  __host__ explicit Divider32(uint32_t d) : divisor(d), shift(0) {
    while ((uint64_t{1} << shift) < d) ++shift;
    magic = static_cast<uint32_t>(((uint64_t{1} << 32) * ((uint64_t{1} << shift) - d)) / d + 1);
  }
  __device__ __forceinline__ uint32_t div(uint32_t n) const {
    return (__umulhi(n, magic) + n) >> shift;
  }
};

// For 64-bit indices: plain division, which only arrays past 2^31 elements or offsets pay.
struct Divider64 {
  uint64_t divisor = 1;
  Divider64() = default;
  __host__ explicit Divider64(uint64_t d) : divisor(d) {}
  __device__ __forceinline__ uint64_t div(uint64_t n) const { return n / divisor; }
};

// The plan's dims and strides in the kernel's index type, passed by value (kernel parameters).
template <typename Index>
struct StridedDims {
  using Divider = std::conditional_t<sizeof(Index) == 4, Divider32, Divider64>;
  using Unsigned = std::make_unsigned_t<Index>;
  int dim;
  Divider sizes[kMaxStridedDims];
  Index strides[kMaxStridedDims][3];  // out, a, b

  // The element offsets of linear index i (dim 0 fastest): one divide per dim but the last.
  __device__ __forceinline__ void offsets(Index i, Index (&off)[3]) const {
    off[0] = off[1] = off[2] = 0;
    auto rest = static_cast<Unsigned>(i);
    // Not unrolled: a copy per possible dim (25) would make each instantiation 30 KB of SASS.
#pragma unroll 1
    for (int d = 0; d < dim - 1; ++d) {
      const Unsigned q = sizes[d].div(rest);
      const auto r = static_cast<Index>(rest - q * sizes[d].divisor);
#pragma unroll
      for (int op = 0; op < 3; ++op) off[op] += r * strides[d][op];
      rest = q;
    }
#pragma unroll
    for (int op = 0; op < 3; ++op) off[op] += static_cast<Index>(rest) * strides[dim - 1][op];
  }
};

// out = a + b over any strides: kUnroll elements per thread, kThreads apart, all loaded before
// the first add (the shape of torch's own kernel for non-contiguous operands).
template <typename A, typename B, typename O, typename Index, int kThreads, int kUnroll>
__global__ void __launch_bounds__(kThreads)
    add_strided_kernel(const A* __restrict__ a, const B* __restrict__ b, O* __restrict__ out,
                       Index n, StridedDims<Index> dims) {
  const Index first = static_cast<Index>(blockIdx.x) * (kThreads * kUnroll) + threadIdx.x;
  Index off[kUnroll][3];
  A x[kUnroll];
  B y[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const Index i = first + u * kThreads;
    if (i < n) {
      dims.offsets(i, off[u]);
      x[u] = a[off[u][1]];
      y[u] = b[off[u][2]];
    }
  }
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    if (first + u * kThreads < n) out[off[u][0]] = add_as<A, B, O>(x[u], y[u]);
  }
}

}  // namespace sum_double::kernels
