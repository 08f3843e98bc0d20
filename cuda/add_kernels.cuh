// The elementwise-add kernels as templates. add_cuda.cu instantiates the configuration it ships;
// benchmarks/kernel_variants.cu instantiates others to measure them against it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

namespace sum_double::kernels {

// Half types are added in float32 and rounded once (to nearest even), as torch.add does.
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ void from_float(float x, __half& out) { out = __float2half_rn(x); }
__device__ __forceinline__ void from_float(float x, __nv_bfloat16& out) {
  out = __float2bfloat16_rn(x);
}

template <typename T>
__device__ __forceinline__ T add_one(T a, T b) {
  T out;
  from_float(to_float(a) + to_float(b), out);
  return out;
}
template <>
__device__ __forceinline__ float add_one(float a, float b) {
  return a + b;
}
template <>
__device__ __forceinline__ double add_one(double a, double b) {
  return a + b;
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

// out[i] = a[i] + b[i] for i < n, on arrays aligned to sizeof(Pack<T, kElems>). Each thread adds
// kUnroll packs, kThreads apart (so a warp's accesses stay contiguous), and issues all of their
// loads before the first add. Block 0 also adds the tail that does not fill a pack, so one launch
// covers any n. Index is int32 whenever n allows it: 64-bit index arithmetic costs registers and
// instructions on the hot path.
template <typename T, typename Index, int kThreads, int kUnroll, int kElems>
__global__ void __launch_bounds__(kThreads)
    add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, Index n) {
  using P = Pack<T, kElems>;
  const auto* pa = reinterpret_cast<const P*>(a);
  const auto* pb = reinterpret_cast<const P*>(b);
  auto* po = reinterpret_cast<P*>(out);
  const Index packs = n / kElems;
  const Index first = static_cast<Index>(blockIdx.x) * (kThreads * kUnroll) + threadIdx.x;

  P x[kUnroll], y[kUnroll];
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
      P r;
#pragma unroll
      for (int k = 0; k < kElems; ++k) r.v[k] = add_one(x[u].v[k], y[u].v[k]);
      po[i] = r;
    }
  }

  if constexpr (kElems > 1) {
    const Index tail = packs * kElems + threadIdx.x;
    if (blockIdx.x == 0 && tail < n) out[tail] = add_one(a[tail], b[tail]);
  }
}

}  // namespace sum_double::kernels
