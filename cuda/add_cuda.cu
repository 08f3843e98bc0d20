// The launcher behind sum_double::add_cuda: picks the kernel for the pointers' alignment, the grid
// shape for the size and the index width for n. Torch-free: raw device pointers and a stream.
#include <algorithm>
#include <atomic>
#include <cstdint>

#include "add_kernels.cuh"
#include "sum_double/add_cuda.h"

namespace sum_double {

// The helpers are `static` rather than in an anonymous namespace: nvcc gives anonymous-namespace
// members external linkage under a name hashed from the source file's path, so the shipped archive
// would differ from one build directory to the next.
using kernels::Pack16;

static int64_t div_up(int64_t x, int64_t y) { return (x + y - 1) / y; }

// One launch of add_kernel with int32 indices when every index it forms (n plus one block of
// slack) fits, int64 otherwise.
template <typename T, int kThreads, int kUnroll, int kElems>
static void launch(const T* a, const T* b, T* out, int64_t n, cudaStream_t stream) {
  constexpr int64_t kPerBlock = int64_t{kThreads} * kUnroll * kElems;
  const auto blocks = static_cast<unsigned>(std::max<int64_t>(1, div_up(n, kPerBlock)));
  if (n <= INT32_MAX - kPerBlock) {
    kernels::add_kernel<T, int32_t, kThreads, kUnroll, kElems>
        <<<blocks, kThreads, 0, stream>>>(a, b, out, static_cast<int32_t>(n));
  } else {
    kernels::add_kernel<T, int64_t, kThreads, kUnroll, kElems>
        <<<blocks, kThreads, 0, stream>>>(a, b, out, n);
  }
}

// Threads the current GPU keeps resident at once: one wave of a grid (SMs x resident threads per
// SM; 132 x 2048 on an H200). Cached per device: the launcher runs on every call, and the answer
// never changes. 0 if the device cannot be queried; the launcher then takes its default shape.
static int64_t wave_threads() {
  constexpr int kMaxDevices = 64;
  static std::atomic<int64_t> cache[kMaxDevices] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device < 0 || device >= kMaxDevices) {
    cudaGetLastError();  // not the launch's error: add_typed() reports cudaGetLastError()
    return 0;
  }
  int64_t wave = cache[device].load(std::memory_order_relaxed);
  if (wave == 0) {
    int sms = 0, per_sm = 0;
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device) !=
            cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    wave = int64_t{sms} * per_sm;
    cache[device].store(wave, std::memory_order_relaxed);
  }
  return wave;
}

// Aligned arrays: a grid that covers the array, its block shape picked by how many waves it fills.
// Each choice was the fastest measured for its band, on an H200 only (benchmarks/NOTES.md):
// - up to half a wave, one pack per thread in 256-thread blocks;
// - between one and two waves, two packs per thread, so that one wave covers the array instead of
//   a second wave starting as the first drains (512-thread blocks: 1024 lost in bfloat16);
// - otherwise one pack per thread in 1024-thread blocks.
// Cache hints (evict-first, the L2 256-byte fetch) were tried and did not pay.
template <typename T>
static void launch_aligned(const T* a, const T* b, T* out, int64_t n, cudaStream_t stream) {
  constexpr int kElems = Pack16<T>::kSize;
  const int64_t packs = n / kElems;
  const int64_t wave = wave_threads();
  if (2 * packs <= wave) {
    launch<T, 256, 1, kElems>(a, b, out, n, stream);
  } else if (packs > wave && packs <= 2 * wave) {
    launch<T, 512, 2, kElems>(a, b, out, n, stream);
  } else {
    launch<T, 1024, 1, kElems>(a, b, out, n, stream);
  }
}

// Arrays off a 16-byte boundary cannot use 128-bit accesses: four elements per thread, all loaded
// before the first add, keep enough bytes in flight (2 to 16 were tried: NOTES, run 23).
template <typename T>
static cudaError_t add_typed(const void* a, const void* b, void* out, int64_t n,
                             cudaStream_t stream) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* po = static_cast<T*>(out);
  const auto address = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  if (((address(a) | address(b) | address(out)) % sizeof(Pack16<T>)) == 0) {
    launch_aligned(pa, pb, po, n, stream);
  } else {
    launch<T, 256, 4, 1>(pa, pb, po, n, stream);
  }
  return cudaGetLastError();
}

cudaError_t add_cuda(const void* a, const void* b, void* out, int64_t n, DType dtype,
                     cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat16:
      return add_typed<__half>(a, b, out, n, stream);
    case DType::kBFloat16:
      return add_typed<__nv_bfloat16>(a, b, out, n, stream);
    case DType::kFloat32:
      return add_typed<float>(a, b, out, n, stream);
    case DType::kFloat64:
      return add_typed<double>(a, b, out, n, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace sum_double
