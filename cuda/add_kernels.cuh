// The elementwise-add kernels as templates. add_cuda.cu instantiates the configuration it ships;
// benchmarks/kernel_variants.cu instantiates others to measure them against it.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>

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

// How add_kernel reads its inputs. k256B adds the PTX prefetch-size hint, which asks L2 to fetch
// the whole 256-byte block around each access from DRAM rather than the 32-byte sectors the warp
// touches; GPUs before sm_80 do not have it and load plainly.
enum class L2Fetch { kPlain, k256B };

template <L2Fetch kFetch, typename P>
__device__ __forceinline__ P load(const P* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (kFetch == L2Fetch::k256B) {
    // .nc (the read-only path, as for __ldg) is safe because add_kernel's inputs never alias its
    // output. Not volatile: the compiler may still schedule these loads like any other.
    const size_t at = __cvta_generic_to_global(p);
    P v;
    if constexpr (sizeof(P) == 16) {
      uint4 r;
      asm("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
          : "l"(at));
      memcpy(&v, &r, sizeof(v));
    } else if constexpr (sizeof(P) == 8) {
      uint64_t r;
      asm("ld.global.nc.L2::256B.u64 %0, [%1];" : "=l"(r) : "l"(at));
      memcpy(&v, &r, sizeof(v));
    } else if constexpr (sizeof(P) == 4) {
      uint32_t r;
      asm("ld.global.nc.L2::256B.u32 %0, [%1];" : "=r"(r) : "l"(at));
      memcpy(&v, &r, sizeof(v));
    } else {
      static_assert(sizeof(P) == 2, "loads are 2, 4, 8 or 16 bytes");
      uint16_t r;
      asm("ld.global.nc.L2::256B.u16 %0, [%1];" : "=h"(r) : "l"(at));
      memcpy(&v, &r, sizeof(v));
    }
    return v;
  }
#endif
  return *p;
}

// out[i] = a[i] + b[i] for i < n, on arrays aligned to sizeof(Pack<T, kElems>). Each thread adds
// kUnroll packs, kThreads apart (so a warp's accesses stay contiguous), and issues all of their
// loads before the first add. Block 0 also adds the tail that does not fill a pack, so one launch
// covers any n. Index is int32 whenever n allows it: 64-bit index arithmetic costs registers and
// instructions on the hot path. kFetch: how the inputs are loaded (L2Fetch above).
template <typename T, typename Index, int kThreads, int kUnroll, int kElems, L2Fetch kFetch>
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
      x[u] = load<kFetch>(pa + i);
      y[u] = load<kFetch>(pb + i);
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
