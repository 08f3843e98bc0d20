// The launcher behind sum_double::add_cuda: picks the kernel for the pointers' alignment and the
// index width for n. Torch-free: raw device pointers and a stream.
#include <algorithm>
#include <cstdint>

#include "add_kernels.cuh"
#include "sum_double/add_cuda.h"

namespace sum_double {
namespace {

using kernels::add_packed;
using kernels::add_scalar;
using kernels::Pack;

// Measured on an H200 (benchmarks/NOTES.md): one 16-byte pack per input per thread, in blocks of
// 1024, with a grid that covers the array, beat deeper unrolling (-1%), smaller blocks (-0.3% to
// -1.3%) and evict-first cache hints (no change).
constexpr int kPackThreads = 1024;
constexpr int kPackUnroll = 1;
// Without 128-bit accesses, four loads per thread keep enough bytes in flight (one lost 22%).
constexpr int kScalarThreads = 256;
constexpr int kScalarUnroll = 4;
// int32 indexing is safe while every index a thread forms (n plus one block of slack) fits.
constexpr int64_t kMaxInt32N = INT32_MAX - int64_t{kPackThreads} * 16;

int64_t div_up(int64_t x, int64_t y) { return (x + y - 1) / y; }

template <typename T>
cudaError_t launch(const void* a, const void* b, void* out, int64_t n, cudaStream_t stream) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* po = static_cast<T*>(out);
  const auto address = [](const void* p) { return reinterpret_cast<uintptr_t>(p); };
  const bool aligned = ((address(a) | address(b) | address(out)) % sizeof(Pack<T>)) == 0;
  if (aligned) {
    const int64_t packs = n / Pack<T>::kSize;
    const auto blocks =
        static_cast<unsigned>(std::max<int64_t>(1, div_up(packs, kPackThreads * kPackUnroll)));
    if (n <= kMaxInt32N) {
      add_packed<T, int32_t, kPackThreads, kPackUnroll>
          <<<blocks, kPackThreads, 0, stream>>>(pa, pb, po, static_cast<int32_t>(n));
    } else {
      add_packed<T, int64_t, kScalarThreads, kPackUnroll>
          <<<blocks, kScalarThreads, 0, stream>>>(pa, pb, po, n);
    }
  } else {
    const auto blocks = static_cast<unsigned>(div_up(n, kScalarThreads * kScalarUnroll));
    if (n <= kMaxInt32N) {
      add_scalar<T, int32_t, kScalarThreads, kScalarUnroll>
          <<<blocks, kScalarThreads, 0, stream>>>(pa, pb, po, static_cast<int32_t>(n));
    } else {
      add_scalar<T, int64_t, kScalarThreads, kScalarUnroll>
          <<<blocks, kScalarThreads, 0, stream>>>(pa, pb, po, n);
    }
  }
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
