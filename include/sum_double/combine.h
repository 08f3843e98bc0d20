// The op's arithmetic on one element: the one definition the CPU loops (their SIMD lanes too) and
// the CUDA kernels all call, and what an op of your own changes. Public, for kernels of your own
// that fuse the op. T is the type it is computed in: float for float16, bfloat16 and float32 (as
// torch's opmath), double for float64, and the CPU's float vector types (__m256, float32x4_t),
// whose operators work lane by lane.
#pragma once

#if defined(__CUDACC__)
#define SUM_DOUBLE_ELEMENTWISE __host__ __device__ __forceinline__
#elif defined(__GNUC__)
#define SUM_DOUBLE_ELEMENTWISE inline __attribute__((always_inline))
#else
#define SUM_DOUBLE_ELEMENTWISE inline
#endif

namespace sum_double {

template <typename T>
SUM_DOUBLE_ELEMENTWISE T combine(T x, T y) {
  return x + y;
}

}  // namespace sum_double
