// Times kernel configurations against each other and against the copy ceiling, in one process,
// on one GPU: the tool behind the choices in cuda/add_cuda.cu (see benchmarks/NOTES.md).
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -Iinclude -Icuda benchmarks/experiments/kernel_variants.cu
//        -o variants                                     (one command, from the repository's root)
//   ./variants
//
// Each figure is the median of 60 event-timed launches after 5 warm-ups, the input sets rotated so
// that no launch finds its inputs in L2. GB/s counts 3 x n x element size (2 reads, 1 write); the
// copy row moves 2 x n x element size (1 read, 1 write) with cudaMemcpyAsync.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "add_kernels.cuh"

namespace k = sum_double::kernels;

#define CHECK(call)                                                                                \
  do {                                                                                             \
    cudaError_t err_ = (call);                                                                     \
    if (err_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// The kernel before tuning: one element per thread per step of a grid-stride loop.
template <typename T>
__global__ void grid_stride(const T* a, const T* b, T* out, int64_t n) {
  const int64_t stride = int64_t{blockDim.x} * gridDim.x;
  for (int64_t i = int64_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n; i += stride) {
    out[i] = k::add_one(a[i], b[i]);
  }
}

// add_kernel's 1024 x 1 configuration with each 16-byte load asking L2 to fetch the whole 256-byte
// block around it (the PTX prefetch-size hint). A warp already reads 512 contiguous bytes per
// input, so this can only help if DRAM serves larger requests better. Timing only: no tail.
__device__ __forceinline__ uint4 load_prefetch_256(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

template <typename T>
__global__ void __launch_bounds__(1024)
    prefetch_256(const T* __restrict__ a, const T* __restrict__ b, T* __restrict__ out, int32_t n) {
  using P = k::Pack16<T>;
  const int32_t i = static_cast<int32_t>(blockIdx.x) * 1024 + threadIdx.x;
  if (i < n / P::kSize) {
    const uint4 ra = load_prefetch_256(reinterpret_cast<const P*>(a) + i);
    const uint4 rb = load_prefetch_256(reinterpret_cast<const P*>(b) + i);
    P x, y, r;
    static_assert(sizeof(P) == sizeof(uint4));
    memcpy(&x, &ra, sizeof(P));
    memcpy(&y, &rb, sizeof(P));
#pragma unroll
    for (int e = 0; e < P::kSize; ++e) r.v[e] = k::add_one(x.v[e], y.v[e]);
    reinterpret_cast<P*>(out)[i] = r;
  }
}

struct Buffers {
  std::vector<void*> a, b, out;
};

double median_us(const Buffers& buf, int64_t n, const std::function<void(int, int64_t)>& launch) {
  // One rotation across all variants of a size: a set comes back only after every other set has
  // been used, so at small sizes, too, no launch finds its inputs in L2.
  static size_t next = 0;
  const size_t sets = buf.a.size();
  for (int i = 0; i < 5; ++i) launch(static_cast<int>(next++ % sets), n);
  CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * 60);
  for (auto& e : ev) CHECK(cudaEventCreate(&e));
  for (int i = 0; i < 60; ++i) {
    CHECK(cudaEventRecord(ev[2 * i]));
    launch(static_cast<int>(next++ % sets), n);
    CHECK(cudaEventRecord(ev[2 * i + 1]));
  }
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<double> us(60);
  for (int i = 0; i < 60; ++i) {
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]));
    us[i] = ms * 1e3;
  }
  for (auto& e : ev) CHECK(cudaEventDestroy(e));
  std::nth_element(us.begin(), us.begin() + 30, us.end());
  return us[30];
}

template <typename T, int kThreads, int kUnroll>
void packed(const Buffers& buf, int set, int64_t n) {
  const int64_t packs = n / k::Pack16<T>::kSize;
  const auto blocks = static_cast<unsigned>(
      std::max<int64_t>(1, (packs + kThreads * kUnroll - 1) / (kThreads * kUnroll)));
  k::add_kernel<T, T, T, int32_t, kThreads, kUnroll, k::Pack16<T>::kSize>
      <<<blocks, kThreads>>>(static_cast<const T*>(buf.a[set]), static_cast<const T*>(buf.b[set]),
                             static_cast<T*>(buf.out[set]), static_cast<int32_t>(n));
}

template <typename T>
void run(const char* dtype, int64_t n, int sm_count) {
  const size_t bytes = n * sizeof(T);
  const int sets = static_cast<int>(std::max<size_t>(1, (size_t{1} << 30) / (3 * bytes)));
  Buffers buf;
  for (int s = 0; s < sets; ++s) {
    void *a, *b, *o;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMalloc(&o, bytes));
    CHECK(cudaMemset(a, 0x3c, bytes));  // finite, nonzero values in every dtype
    CHECK(cudaMemset(b, 0x41, bytes));
    buf.a.push_back(a), buf.b.push_back(b), buf.out.push_back(o);
  }
  const double moved = 3.0 * bytes;
  const auto report = [&](const std::string& name, double us, double factor = 1.0) {
    std::printf("%-9s n=2^%-5.2f %-24s %9.2f us %8.1f GB/s\n", dtype, std::log2(double(n)),
                name.c_str(), us, moved * factor / us / 1e3);
  };
  report("copy (memcpy, 2 passes)",
         median_us(buf, n,
                   [&](int s, int64_t m) {
                     CHECK(cudaMemcpyAsync(buf.out[s], buf.a[s], m * sizeof(T),
                                           cudaMemcpyDeviceToDevice));
                   }),
         2.0 / 3.0);
  report("grid-stride 256x(SMs*32)", median_us(buf, n, [&](int s, int64_t m) {
           grid_stride<T><<<sm_count * 32, 256>>>(static_cast<const T*>(buf.a[s]),
                                                  static_cast<const T*>(buf.b[s]),
                                                  static_cast<T*>(buf.out[s]), m);
         }));
#define VARIANT(THREADS, UNROLL)         \
  report("packed " #THREADS "x" #UNROLL, \
         median_us(buf, n, [&](int s, int64_t m) { packed<T, THREADS, UNROLL>(buf, s, m); }))
  VARIANT(128, 1);
  VARIANT(256, 1);
  VARIANT(512, 1);
  VARIANT(1024, 1);
  VARIANT(512, 2);
  VARIANT(256, 4);
  report("packed 1024x1, L2::256B", median_us(buf, n, [&](int s, int64_t m) {
           const auto blocks =
               static_cast<unsigned>(std::max<int64_t>(1, (m / k::Pack16<T>::kSize + 1023) / 1024));
           prefetch_256<T><<<blocks, 1024>>>(static_cast<const T*>(buf.a[s]),
                                             static_cast<const T*>(buf.b[s]),
                                             static_cast<T*>(buf.out[s]), static_cast<int32_t>(m));
         }));
  report("scalar 256x4, misaligned", median_us(buf, n, [&](int s, int64_t m) {
           const auto blocks = static_cast<unsigned>((m - 1 + 1023) / 1024);
           k::add_kernel<T, T, T, int32_t, 256, 4, 1><<<blocks, 256>>>(
               static_cast<const T*>(buf.a[s]) + 1, static_cast<const T*>(buf.b[s]) + 1,
               static_cast<T*>(buf.out[s]), static_cast<int32_t>(m - 1));
         }));
  report("scalar 256x1, misaligned", median_us(buf, n, [&](int s, int64_t m) {
           const auto blocks = static_cast<unsigned>((m - 1 + 255) / 256);
           k::add_kernel<T, T, T, int32_t, 256, 1, 1><<<blocks, 256>>>(
               static_cast<const T*>(buf.a[s]) + 1, static_cast<const T*>(buf.b[s]) + 1,
               static_cast<T*>(buf.out[s]), static_cast<int32_t>(m - 1));
         }));
#undef VARIANT
  for (int s = 0; s < sets; ++s) {
    CHECK(cudaFree(buf.a[s]));
    CHECK(cudaFree(buf.b[s]));
    CHECK(cudaFree(buf.out[s]));
  }
}

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20);
  // 2^21 float32 and 2^22 in the 16-bit types: between one and two waves on an H200, where the
  // launcher ships 512x2.
  for (int64_t n : {int64_t{1} << 16, int64_t{1} << 18, int64_t{1} << 20, int64_t{1000000},
                    int64_t{1} << 21, int64_t{1} << 24, int64_t{1} << 28, int64_t{1} << 29}) {
    run<float>("float32", n, prop.multiProcessorCount);
  }
  for (int64_t n : {int64_t{1} << 22, int64_t{1} << 28}) {
    run<__nv_bfloat16>("bfloat16", n, prop.multiProcessorCount);
    run<__half>("float16", n, prop.multiProcessorCount);
  }
  run<double>("float64", int64_t{1} << 27, prop.multiProcessorCount);
  return 0;
}
