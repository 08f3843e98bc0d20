// The launcher behind sum_double::add_cuda: picks the kernel for the pointers' alignment and the
// index width for n. Torch-free: raw device pointers and a stream.
#include <algorithm>
#include <cstdint>

#include "add_kernels.cuh"
#include "sum_double/add_cuda.h"

namespace sum_double {
namespace {

using kernels::Pack16;

int64_t div_up(int64_t x, int64_t y) { return (x + y - 1) / y; }

// One launch of add_kernel with int32 indices when every index it forms (n plus one block of
// slack) fits, int64 otherwise.
template <typename T, int kThreads, int kUnroll, int kElems>
void launch(const T* a, const T* b, T* out, int64_t n, cudaStream_t stream) {
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

// Measured on an H200 (benchmarks/NOTES.md). Aligned arrays: one 16-byte pack per input per
// thread, in blocks of 1024, with a grid that covers the array. Four packs per thread lost about
// 1%; 128- to 512-thread blocks were within the 0.3% run-to-run spread at 2^28 elements and up
// to 1.3% slower at 2^20-2^24; evict-first cache hints changed nothing. Arrays off a 16-byte
// boundary cannot use 128-bit accesses: four elements per thread keep enough bytes in flight (one
// element per thread lost 24% in float32 and 49% in the 16-bit types at 2^28).
template <typename T>
cudaError_t add_typed(const void* a, const void* b, void* out, int64_t n, cudaStream_t stream) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* po = static_cast<T*>(out);
  const auto address = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  if (((address(a) | address(b) | address(out)) % sizeof(Pack16<T>)) == 0) {
    launch<T, 1024, 1, Pack16<T>::kSize>(pa, pb, po, n, stream);
  } else {
    launch<T, 256, 4, 1>(pa, pb, po, n, stream);
  }
  return cudaGetLastError();
}

}  // namespace

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
