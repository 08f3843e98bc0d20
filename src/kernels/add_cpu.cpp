// The CPU loop behind sum_double::add_cpu. Torch-free on purpose: it sees raw arrays only.
#include "sum_double/add_cpu.h"

#include <cmath>
#include <cstdint>
#include <cstring>

// The wheel is built for baseline x86-64 (SSE2), but the loops pay for wider vectors: GCC emits an
// AVX-512 and an AVX2 (+F16C) clone of each and picks one when the module loads.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SUM_DOUBLE_CPU_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SUM_DOUBLE_CPU_CLONES
#endif

namespace sum_double {
namespace {

// bfloat16 is the top half of a float32. The rounding (to nearest even, NaN kept quiet) is the
// same as torch's, so results match torch.add bit for bit.
struct BFloat16 {
  uint16_t bits;
};

inline float to_float(BFloat16 x) {
  uint32_t u = static_cast<uint32_t>(x.bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

inline BFloat16 to_bfloat16(float f) {
  if (std::isnan(f)) return {0x7FC0};
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return {static_cast<uint16_t>(u >> 16)};
}

// Separate loops per type so the compiler vectorises the float32/float64 ones.
template <typename T>
SUM_DOUBLE_CPU_CLONES void add_same(const T* __restrict a, const T* __restrict b, T* __restrict out,
                                    int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

// Half types: add in float32 and round once, as torch does.
SUM_DOUBLE_CPU_CLONES void add_half(const _Float16* __restrict a, const _Float16* __restrict b,
                                    _Float16* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<_Float16>(static_cast<float>(a[i]) + static_cast<float>(b[i]));
  }
}

SUM_DOUBLE_CPU_CLONES void add_bf16(const BFloat16* __restrict a, const BFloat16* __restrict b,
                                    BFloat16* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = to_bfloat16(to_float(a[i]) + to_float(b[i]));
}

}  // namespace

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      add_half(static_cast<const _Float16*>(a), static_cast<const _Float16*>(b),
               static_cast<_Float16*>(out), n);
      break;
    case DType::kBFloat16:
      add_bf16(static_cast<const BFloat16*>(a), static_cast<const BFloat16*>(b),
               static_cast<BFloat16*>(out), n);
      break;
    case DType::kFloat32:
      add_same(static_cast<const float*>(a), static_cast<const float*>(b), static_cast<float*>(out),
               n);
      break;
    case DType::kFloat64:
      add_same(static_cast<const double*>(a), static_cast<const double*>(b),
               static_cast<double*>(out), n);
      break;
  }
}

}  // namespace sum_double
