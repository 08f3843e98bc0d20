// The CUDA kernel behind sum_double::add_cuda. Torch-free: raw device pointers and a stream.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <climits>
#include <cstdint>

#include "sum_double/add_cuda.h"

namespace sum_double {
namespace {

// Half types are added in float32 and rounded once (to nearest even), as torch.add does.
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ __half from_float<__half>(float x) {
  return __float2half_rn(x);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

template <typename T>
__device__ __forceinline__ T add_one(T a, T b) {
  return from_float<T>(to_float(a) + to_float(b));
}
__device__ __forceinline__ float add_one(float a, float b) { return a + b; }
__device__ __forceinline__ double add_one(double a, double b) { return a + b; }

// 64-bit indices and a grid-stride loop: correct for any n, including n >= 2^31.
template <typename T>
__global__ void add_kernel(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out,
                           int64_t n) {
  const int64_t stride = static_cast<int64_t>(blockDim.x) * gridDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    out[i] = add_one(a[i], b[i]);
  }
}

template <typename T>
cudaError_t launch(const void* a, const void* b, void* out, int64_t n, cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t blocks = std::min<int64_t>((n + kThreads - 1) / kThreads, INT_MAX);
  add_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t add_cuda(const void* a, const void* b, void* out, int64_t n, DType dtype,
                     cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat16:
      return launch<__half>(a, b, out, n, stream);
    case DType::kBFloat16:
      return launch<__nv_bfloat16>(a, b, out, n, stream);
    case DType::kFloat32:
      return launch<float>(a, b, out, n, stream);
    case DType::kFloat64:
      return launch<double>(a, b, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace sum_double
