// The CPU loops for contiguous arrays of one dtype, one copy per instruction set, chosen once by
// asking the CPU. Torch-free: raw arrays only. Plans of any strides: add_strided.cpp.
#include "sum_double/add_cpu.h"

#include "convert.h"
#include "sum_double/combine.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SUM_DOUBLE_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

namespace sum_double {
namespace {

using namespace detail;

// ---- Loop bodies

template <typename T>
SUM_DOUBLE_BODY void add_same(const T* __restrict a, const T* __restrict b, T* __restrict out,
                              int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = combine(a[i], b[i]);
}

SUM_DOUBLE_BODY void add_bf16(const uint16_t* __restrict a, const uint16_t* __restrict b,
                              uint16_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = float_to_bf16(combine(bf16_to_float(a[i]), bf16_to_float(b[i])));
}

SUM_DOUBLE_BODY void add_half_portable(const uint16_t* __restrict a, const uint16_t* __restrict b,
                                       uint16_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = float_to_half(combine(half_to_float(a[i]), half_to_float(b[i])));
}

#if defined(__aarch64__)
// AArch64's vector unit converts float16 (FCVTL, FCVTN: to nearest even as FPCR says, which is the
// default). GCC 12 does not vectorise the same loop written with __fp16, hence the intrinsics.
// combine() lane by lane, which GCC compiles to the one vector instruction of the op.
SUM_DOUBLE_BODY float32x4_t lanes(float32x4_t x, float32x4_t y) {
  float32x4_t out;
  for (int k = 0; k < 4; ++k) out[k] = combine(x[k], y[k]);
  return out;
}

SUM_DOUBLE_BODY void add_half_neon(const uint16_t* __restrict a, const uint16_t* __restrict b,
                                   uint16_t* __restrict out, int64_t n) {
  const auto* a16 = reinterpret_cast<const __fp16*>(a);
  const auto* b16 = reinterpret_cast<const __fp16*>(b);
  auto* out16 = reinterpret_cast<__fp16*>(out);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t x = vld1q_f16(a16 + i);
    const float16x8_t y = vld1q_f16(b16 + i);
    const float32x4_t low = lanes(vcvt_f32_f16(vget_low_f16(x)), vcvt_f32_f16(vget_low_f16(y)));
    const float32x4_t high = lanes(vcvt_high_f32_f16(x), vcvt_high_f32_f16(y));
    vst1q_f16(out16 + i, vcvt_high_f16_f32(vcvt_f16_f32(low), high));
  }
  for (; i < n; ++i) out16[i] = static_cast<__fp16>(combine<float>(a16[i], b16[i]));
}
#endif

// ---- One function per instruction set, each running the bodies above for all four types.

using HalfLoop = void (*)(const uint16_t*, const uint16_t*, uint16_t*, int64_t);

template <HalfLoop add_half>
SUM_DOUBLE_BODY void add_any(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  switch (dtype) {
    case DType::kFloat16:
      add_half(static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b),
               static_cast<uint16_t*>(out), n);
      break;
    case DType::kBFloat16:
      add_bf16(static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b),
               static_cast<uint16_t*>(out), n);
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

void add_baseline(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  add_any<add_half_portable>(a, b, out, n, dtype);
}

#if defined(SUM_DOUBLE_X86)
#define SUM_DOUBLE_AVX2 __attribute__((target("avx2,f16c")))

// combine() lane by lane, which GCC compiles to the one vector instruction of the op.
SUM_DOUBLE_AVX2 SUM_DOUBLE_BODY __m256 lanes(__m256 x, __m256 y) {
  __m256 out;
  for (int k = 0; k < 8; ++k) out[k] = combine(x[k], y[k]);
  return out;
}

// F16C: 8 conversions per instruction, rounding to nearest even whatever MXCSR says.
SUM_DOUBLE_AVX2 void add_half_f16c(const uint16_t* __restrict a, const uint16_t* __restrict b,
                                   uint16_t* __restrict out, int64_t n) {
  constexpr int kRound = _MM_FROUND_TO_NEAREST_INT;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)));
    const __m256 b0 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
    const __m256 a1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i + 8)));
    const __m256 b1 = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i + 8)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm256_cvtps_ph(lanes(a0, b0), kRound));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8),
                     _mm256_cvtps_ph(lanes(a1, b1), kRound));
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(combine(_cvtsh_ss(a[i]), _cvtsh_ss(b[i])), kRound);
}

SUM_DOUBLE_AVX2 void add_avx2(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  add_any<add_half_f16c>(a, b, out, n, dtype);
}
#endif

#if defined(__aarch64__)
void add_aarch64(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  add_any<add_half_neon>(a, b, out, n, dtype);
}
#endif

using AddFn = void (*)(const void*, const void*, void*, int64_t, DType);
struct Loops {
  AddFn add;
  const char* isa;
};

// Chosen once, by asking the CPU, rather than with GCC's target_clones: the AVX2 float16 loop is a
// different body (F16C intrinsics), which a clone compiled for baseline x86-64 could not contain.
Loops pick() {
  const char* baseline = std::getenv("SUM_DOUBLE_CPU_BASELINE");
  if (baseline != nullptr && std::strcmp(baseline, "1") == 0) return {&add_baseline, "baseline"};
#if defined(SUM_DOUBLE_X86)
  // AVX2 as the compiler sees it (the OS saves the vector registers too); F16C from CPUID, as
  // clang's __builtin_cpu_supports does not know it.
  __builtin_cpu_init();
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & bit_F16C) != 0;
  if (__builtin_cpu_supports("avx2") && f16c) return {&add_avx2, "avx2+f16c"};
#elif defined(__aarch64__)
  return {&add_aarch64, "aarch64"};
#endif
  return {&add_baseline, "baseline"};
}

const Loops& loops() {
  static const Loops chosen = pick();
  return chosen;
}

}  // namespace

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  loops().add(a, b, out, n, dtype);
}

const char* add_cpu_isa() { return loops().isa; }

}  // namespace sum_double
