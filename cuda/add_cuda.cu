// The launchers behind sum_double::add_cuda: plain arrays to the vectorised kernel (picked for the
// pointers' alignment, the grid shape for the size, the index width for n), any other plan to the
// N-d kernel. Torch-free: raw device pointers and a stream.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "add_kernels.cuh"
#include "sum_double/add_cuda.h"
#include "sum_double/with_types.h"

namespace sum_double {

// The helpers are `static` rather than in an anonymous namespace: nvcc gives anonymous-namespace
// members external linkage under a name hashed from the source file's path, so the shipped archive
// would differ from one build directory to the next.
using kernels::Pack16;

static int64_t div_up(int64_t x, int64_t y) { return (x + y - 1) / y; }

// One launch of add_kernel with int32 indices when every index it forms (n plus one block of
// slack) fits, int64 otherwise.
template <typename A, typename B, typename O, int kThreads, int kUnroll, int kElems>
static void launch(const A* a, const B* b, O* out, int64_t n, cudaStream_t stream) {
  constexpr int64_t kPerBlock = int64_t{kThreads} * kUnroll * kElems;
  const auto blocks = static_cast<unsigned>(std::max<int64_t>(1, div_up(n, kPerBlock)));
  if (n <= INT32_MAX - kPerBlock) {
    kernels::add_kernel<A, B, O, int32_t, kThreads, kUnroll, kElems>
        <<<blocks, kThreads, 0, stream>>>(a, b, out, static_cast<int32_t>(n));
  } else {
    kernels::add_kernel<A, B, O, int64_t, kThreads, kUnroll, kElems>
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
    cudaGetLastError();  // not the launch's error: the launcher reports cudaGetLastError()
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
    launch<T, T, T, 256, 1, kElems>(a, b, out, n, stream);
  } else if (packs > wave && packs <= 2 * wave) {
    launch<T, T, T, 512, 2, kElems>(a, b, out, n, stream);
  } else {
    launch<T, T, T, 1024, 1, kElems>(a, b, out, n, stream);
  }
}

static bool aligned(const void* p, size_t alignment) {
  return reinterpret_cast<uintptr_t>(p) % alignment == 0;
}

// Arrays off their pack boundary cannot use 128-bit accesses: four elements per thread, all loaded
// before the first add, keep enough bytes in flight (2 to 16 were tried: benchmarks/NOTES.md).
template <typename T>
static void launch_flat(const void* a, const void* b, void* out, int64_t n, cudaStream_t stream) {
  const auto* pa = static_cast<const T*>(a);
  const auto* pb = static_cast<const T*>(b);
  auto* po = static_cast<T*>(out);
  if (aligned(a, sizeof(Pack16<T>)) && aligned(b, sizeof(Pack16<T>)) &&
      aligned(out, sizeof(Pack16<T>))) {
    launch_aligned(pa, pb, po, n, stream);
  } else {
    launch<T, T, T, 256, 4, 1>(pa, pb, po, n, stream);
  }
}

// The largest offset an operand reaches, in elements (plan_add() refuses negative strides).
static int64_t max_offset(const AddPlan& p, int op) {
  int64_t reach = 0;
  for (int d = 0; d < p.dim; ++d) reach += (p.sizes[d] - 1) * p.strides[op][d];
  return reach;
}

template <typename Index>
static kernels::StridedDims<Index> strided_dims(const AddPlan& p) {
  kernels::StridedDims<Index> dims{};
  using Divider = typename kernels::StridedDims<Index>::Divider;
  dims.dim = std::max(p.dim, 1);  // one element (dim 0) reads offset 0 of each operand
  for (int d = 0; d < dims.dim; ++d) {
    dims.sizes[d] = Divider(static_cast<std::make_unsigned_t<Index>>(d < p.dim ? p.sizes[d] : 1));
    for (int op = 0; op < 3; ++op) {
      dims.strides[d][op] = static_cast<Index>(d < p.dim ? p.strides[op][d] : 0);
    }
  }
  return dims;
}

// 128 threads of 4 elements each with int32 indices; past them, one element per thread, since
// each 64-bit division is a long subroutine and four of them per thread would quadruple the code.
template <typename A, typename B, typename O>
static void launch_strided(const AddPlan& p, cudaStream_t stream) {
  constexpr int kThreads = 128, kUnroll = 4;
  const auto* a = static_cast<const A*>(p.a);
  const auto* b = static_cast<const B*>(p.b);
  auto* out = static_cast<O*>(p.out);
  const bool fits32 = p.numel <= INT32_MAX - kThreads * kUnroll && max_offset(p, 0) <= INT32_MAX &&
                      max_offset(p, 1) <= INT32_MAX && max_offset(p, 2) <= INT32_MAX;
  if (fits32) {
    const auto blocks = static_cast<unsigned>(div_up(p.numel, kThreads * kUnroll));
    kernels::add_strided_kernel<A, B, O, int32_t, kThreads, kUnroll>
        <<<blocks, kThreads, 0, stream>>>(a, b, out, static_cast<int32_t>(p.numel),
                                          strided_dims<int32_t>(p));
  } else {
    const auto blocks = static_cast<unsigned>(div_up(p.numel, kThreads));
    kernels::add_strided_kernel<A, B, O, int64_t, kThreads, 1>
        <<<blocks, kThreads, 0, stream>>>(a, b, out, p.numel, strided_dims<int64_t>(p));
  }
}

// Mixed dtypes in plain arrays, each aligned to its pack: the vectorised kernel in its one shape
// for large arrays. Anything else with mixed dtypes takes the strided kernel (one dim, no
// divisions), so that the rarer paths add 6 vectorised kernels, not 6 x 8.
template <typename A, typename B, typename O>
static bool launch_flat_mixed(const void* a, const void* b, void* out, int64_t n,
                              cudaStream_t stream) {
  constexpr int kElems = kernels::kPackElems<A, B, O>;
  constexpr int64_t kPerBlock = 1024 * kElems;
  if (!aligned(a, sizeof(A) * kElems) || !aligned(b, sizeof(B) * kElems) ||
      !aligned(out, sizeof(O) * kElems) || n > INT32_MAX - kPerBlock) {
    return false;
  }
  const auto blocks = static_cast<unsigned>(std::max<int64_t>(1, div_up(n, kPerBlock)));
  kernels::add_kernel<A, B, O, int32_t, 1024, 1, kElems>
      <<<blocks, 1024, 0, stream>>>(static_cast<const A*>(a), static_cast<const B*>(b),
                                    static_cast<O*>(out), static_cast<int32_t>(n));
  return true;
}

template <DType kType>
using Storage = std::conditional_t<
    kType == DType::kFloat16, __half,
    std::conditional_t<kType == DType::kBFloat16, __nv_bfloat16,
                       std::conditional_t<kType == DType::kFloat32, float, double>>>;

cudaError_t add_cuda(const void* a, const void* b, void* out, int64_t n, DType dtype,
                     cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  switch (dtype) {
    case DType::kFloat16:
      launch_flat<__half>(a, b, out, n, stream);
      break;
    case DType::kBFloat16:
      launch_flat<__nv_bfloat16>(a, b, out, n, stream);
      break;
    case DType::kFloat32:
      launch_flat<float>(a, b, out, n, stream);
      break;
    case DType::kFloat64:
      launch_flat<double>(a, b, out, n, stream);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t add_cuda(const AddPlan& plan, cudaStream_t stream) {
  if (plan.numel <= 0) return cudaSuccess;
  if (plan.flat && plan.a_dtype == plan.out_dtype && plan.b_dtype == plan.out_dtype) {
    return add_cuda(plan.a, plan.b, plan.out, plan.numel, plan.out_dtype, stream);
  }
  AddPlan p = plan;  // a copy only where the inputs may need swapping
  order_inputs(p);
  const bool known = with_types<Storage>(
      p.a_dtype, p.b_dtype, p.out_dtype, [&](auto a, auto b, auto o, auto promoted) {
        using A = decltype(a);
        using B = decltype(b);
        using O = decltype(o);
        // Plain arrays of mixed dtypes take the vectorised kernel (same dtypes took it above); a
        // 0-dim input rounded to a narrower out (one element) never needs it.
        constexpr bool kMixed = !std::is_same_v<A, O> || !std::is_same_v<B, O>;
        if constexpr (kMixed && decltype(promoted)::value) {
          if (p.flat && launch_flat_mixed<A, B, O>(p.a, p.b, p.out, p.numel, stream)) return;
        }
        launch_strided<A, B, O>(p, stream);
      });
  return known ? cudaGetLastError() : cudaErrorInvalidValue;
}

}  // namespace sum_double
