// The CPU loops behind sum_double::add_cpu: contiguous arrays of one dtype, per instruction set,
// and plans of any strides and dtype triple, a row at a time. Torch-free: raw arrays only.
#include "sum_double/add_cpu.h"

#include "with_types.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <utility>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SUM_DOUBLE_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#endif

// The loop bodies are inlined into one function per instruction set (below), so that each copy is
// compiled, and vectorised, for that instruction set.
#if defined(__GNUC__)
#define SUM_DOUBLE_BODY inline __attribute__((always_inline))
#else
#define SUM_DOUBLE_BODY inline
#endif

namespace sum_double {
namespace {

template <typename To, typename From>
SUM_DOUBLE_BODY To bits_as(From x) {
  static_assert(sizeof(To) == sizeof(From));
  To y;
  std::memcpy(&y, &x, sizeof y);
  return y;
}

// ---- Conversions. Both half types are added in float32 and rounded once to nearest even, as
// torch does, so results match torch.add bit for bit (NaN payloads aside: see add_cpu.h).

// bfloat16 is the top half of a float32.
SUM_DOUBLE_BODY float bf16_to_float(uint16_t x) {
  return bits_as<float>(static_cast<uint32_t>(x) << 16);
}

SUM_DOUBLE_BODY uint16_t float_to_bf16(float f) {
  const uint32_t u = bits_as<uint32_t>(f);
  const uint32_t rounded = (u + 0x7FFFu + ((u >> 16) & 1u)) >> 16;
  return static_cast<uint16_t>((u & 0x7FFFFFFFu) > 0x7F800000u ? 0x7FC0u : rounded);
}

// float16 in integer arithmetic, for CPUs without conversion instructions: no branches (the
// compiler vectorises the loop) and no calls into libgcc (GCC's _Float16 makes them on x86).
// Results are the F16C instructions', NaN payloads included.

// c ? x : y in bitwise operations. With ?:, GCC moves a float operation that only one side needs
// into a branch, and then cannot vectorise the loop (the operation might trap).
SUM_DOUBLE_BODY int32_t select(bool c, int32_t x, int32_t y) {
  const int32_t mask = -static_cast<int32_t>(c);
  return (x & mask) | (y & ~mask);
}

SUM_DOUBLE_BODY float half_to_float(uint16_t h) {
  const int32_t sign = static_cast<int32_t>(h & 0x8000u) << 16;
  const int32_t mag = h & 0x7FFF;
  // Normal numbers: move exponent and mantissa into place, rebias the exponent from 15 to 127.
  // Infinities and NaNs (exponent 31) get exponent 255, the mantissa (payload) kept.
  const int32_t normal = (mag << 13) + (select(mag >= 0x7C00, 2 * (127 - 15), 127 - 15) << 23);
  // Zero and subnormals: the mantissa times 2^-24, exact in float32.
  const int32_t subnormal = bits_as<int32_t>(static_cast<float>(mag) * 0x1p-24f);
  return bits_as<float>(sign | select(mag < 0x0400, subnormal, normal));
}

SUM_DOUBLE_BODY uint16_t float_to_half(float f) {
  const uint32_t u = bits_as<uint32_t>(f);
  const int32_t sign = static_cast<int32_t>((u >> 16) & 0x8000u);
  const int32_t mag = static_cast<int32_t>(u & 0x7FFFFFFFu);
  // Normal results: round away the low 13 mantissa bits (to nearest, ties to even; a carry moves
  // into the exponent, as it should), then rebias the exponent from 127 to 15.
  // (In unsigned arithmetic: for NaNs, whose result is picked below, the sum passes INT32_MAX.)
  const int32_t normal =
      static_cast<int32_t>((static_cast<uint32_t>(mag) + 0x0FFFu + ((mag >> 13) & 1)) >> 13) -
      ((127 - 15) << 10);
  // Subnormal results (below 2^-14, where a sum of two float16 is exact): in 0.5f + |f| the last
  // bit is worth 2^-24, a float16 subnormal's unit.
  const int32_t subnormal = bits_as<int32_t>(bits_as<float>(mag) + 0.5f) - bits_as<int32_t>(0.5f);
  int32_t h = select(mag < 0x38800000, subnormal, normal);
  h = select(mag >= 0x477FF000, 0x7C00, h);                         // 65520 and up: inf
  h = select(mag > 0x7F800000, 0x7E00 | ((mag >> 13) & 0x3FF), h);  // NaN: quiet, payload's top
  return static_cast<uint16_t>(sign | h);
}

// ---- Loop bodies

template <typename T>
SUM_DOUBLE_BODY void add_same(const T* __restrict a, const T* __restrict b, T* __restrict out,
                              int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

SUM_DOUBLE_BODY void add_bf16(const uint16_t* __restrict a, const uint16_t* __restrict b,
                              uint16_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_bf16(bf16_to_float(a[i]) + bf16_to_float(b[i]));
}

SUM_DOUBLE_BODY void add_half_portable(const uint16_t* __restrict a, const uint16_t* __restrict b,
                                       uint16_t* __restrict out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = float_to_half(half_to_float(a[i]) + half_to_float(b[i]));
}

#if defined(__aarch64__)
// AArch64's vector unit converts float16 (FCVTL, FCVTN: to nearest even as FPCR says, which is the
// default). GCC 12 does not vectorise the same loop written with __fp16, hence the intrinsics.
SUM_DOUBLE_BODY void add_half_neon(const uint16_t* __restrict a, const uint16_t* __restrict b,
                                   uint16_t* __restrict out, int64_t n) {
  const auto* a16 = reinterpret_cast<const __fp16*>(a);
  const auto* b16 = reinterpret_cast<const __fp16*>(b);
  auto* out16 = reinterpret_cast<__fp16*>(out);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const float16x8_t x = vld1q_f16(a16 + i);
    const float16x8_t y = vld1q_f16(b16 + i);
    const float32x4_t low = vaddq_f32(vcvt_f32_f16(vget_low_f16(x)), vcvt_f32_f16(vget_low_f16(y)));
    const float32x4_t high = vaddq_f32(vcvt_high_f32_f16(x), vcvt_high_f32_f16(y));
    vst1q_f16(out16 + i, vcvt_high_f16_f32(vcvt_f16_f32(low), high));
  }
  for (; i < n; ++i) out16[i] = static_cast<__fp16>(static_cast<float>(a16[i]) + b16[i]);
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
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i),
                     _mm256_cvtps_ph(_mm256_add_ps(a0, b0), kRound));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 8),
                     _mm256_cvtps_ph(_mm256_add_ps(a1, b1), kRound));
  }
  for (; i < n; ++i) out[i] = _cvtss_sh(_cvtsh_ss(a[i]) + _cvtsh_ss(b[i]), kRound);
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

// ---- Mixed dtypes and strided operands: one row loop per (a, b, out) dtype triple, in baseline
// code (compiled once). Rows of one dtype with stride 1 take the loops above instead.

// The half types' storage, as distinct types so that a template can tell them apart.
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

SUM_DOUBLE_BODY float to_float(Half x) { return half_to_float(x.bits); }
SUM_DOUBLE_BODY float to_float(BFloat16 x) { return bf16_to_float(x.bits); }
SUM_DOUBLE_BODY float to_float(float x) { return x; }
SUM_DOUBLE_BODY float to_float(double x) { return static_cast<float>(x); }

template <typename T>
SUM_DOUBLE_BODY double to_double(T x) {
  return static_cast<double>(to_float(x));
}
SUM_DOUBLE_BODY double to_double(double x) { return x; }

// What out's dtype is added in: float32 for every dtype but float64, as torch's opmath_type.
template <typename O>
using Math = std::conditional_t<std::is_same_v<O, double>, double, float>;

template <typename O>
SUM_DOUBLE_BODY O round_to(Math<O> x) {
  if constexpr (std::is_same_v<O, Half>) {
    return Half{float_to_half(x)};
  } else if constexpr (std::is_same_v<O, BFloat16>) {
    return BFloat16{float_to_bf16(x)};
  } else {
    return x;
  }
}

// An input element converted to out's dtype (rounded, when that is narrower, through float32 as
// torch's casts do), in out's Math type. Exact for every type torch.result_type picks.
template <typename O, typename A>
SUM_DOUBLE_BODY Math<O> load_as(A x) {
  if constexpr (std::is_same_v<O, double>) {
    return to_double(x);
  } else if constexpr (std::is_same_v<O, float> || std::is_same_v<O, A>) {
    return to_float(x);
  } else {
    return to_float(round_to<O>(to_float(x)));
  }
}

template <typename A, typename B, typename O>
SUM_DOUBLE_BODY O add_as(A x, B y) {
  return round_to<O>(load_as<O>(x) + load_as<O>(y));
}

// n elements, each operand stepping by its stride (in elements). The three shapes a row takes
// most (all dense, one input broadcast) get loops of their own, which the compiler vectorises.
template <typename A, typename B, typename O>
void add_row(const A* a, int64_t sa, const B* b, int64_t sb, O* out, int64_t so, int64_t n) {
  if (so == 1 && sa == 1 && sb == 1) {
    const A* __restrict pa = a;
    const B* __restrict pb = b;
    O* __restrict po = out;
    for (int64_t i = 0; i < n; ++i) po[i] = add_as<A, B, O>(pa[i], pb[i]);
  } else if (so == 1 && sa == 0 && sb == 1) {
    const Math<O> x = load_as<O>(*a);
    for (int64_t i = 0; i < n; ++i) out[i] = round_to<O>(x + load_as<O>(b[i]));
  } else if (so == 1 && sa == 1 && sb == 0) {
    const Math<O> y = load_as<O>(*b);
    for (int64_t i = 0; i < n; ++i) out[i] = round_to<O>(load_as<O>(a[i]) + y);
  } else {
    for (int64_t i = 0; i < n; ++i) out[i * so] = add_as<A, B, O>(a[i * sa], b[i * sb]);
  }
}

template <DType kType>
using Storage = std::conditional_t<
    kType == DType::kFloat16, Half,
    std::conditional_t<kType == DType::kBFloat16, BFloat16,
                       std::conditional_t<kType == DType::kFloat32, float, double>>>;

// Elements [begin, end) of the plan's order: a row of dim 0 at a time, the index of dims 1 and up
// carried as a counter.
template <typename A, typename B, typename O>
void add_strided(const AddPlan& p, int64_t begin, int64_t end) {
  int64_t index[AddPlan::kMaxDims];
  int64_t rest = begin;
  for (int d = 0; d < p.dim; ++d) {
    index[d] = rest % p.sizes[d];
    rest /= p.sizes[d];
  }
  const bool same = std::is_same_v<A, O> && std::is_same_v<B, O>;
  const bool dense_rows = p.strides[0][0] == 1 && p.strides[1][0] == 1 && p.strides[2][0] == 1;
  for (int64_t pos = begin; pos < end;) {
    int64_t offset[3] = {0, 0, 0};
    for (int d = 0; d < p.dim; ++d) {
      for (int op = 0; op < 3; ++op) offset[op] += index[d] * p.strides[op][d];
    }
    const int64_t n = std::min(p.sizes[0] - index[0], end - pos);
    const A* a = static_cast<const A*>(p.a) + offset[1];
    const B* b = static_cast<const B*>(p.b) + offset[2];
    O* out = static_cast<O*>(p.out) + offset[0];
    if (same && dense_rows) {
      loops().add(a, b, out, n, p.out_dtype);
    } else {
      add_row(a, p.strides[1][0], b, p.strides[2][0], out, p.strides[0][0], n);
    }
    pos += n;
    index[0] = 0;
    for (int d = 1; d < p.dim && ++index[d] == p.sizes[d]; ++d) index[d] = 0;
  }
}

}  // namespace

void add_cpu(const void* a, const void* b, void* out, int64_t n, DType dtype) {
  loops().add(a, b, out, n, dtype);
}

void add_cpu(const AddPlan& plan, int64_t begin, int64_t end) {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, plan.numel);
  if (begin >= end) return;
  const int64_t n = end - begin;
  if (plan.flat && plan.a_dtype == plan.out_dtype && plan.b_dtype == plan.out_dtype) {
    const int64_t size = plan.out_dtype == DType::kFloat64   ? 8
                         : plan.out_dtype == DType::kFloat32 ? 4
                                                             : 2;
    loops().add(static_cast<const char*>(plan.a) + begin * size,
                static_cast<const char*>(plan.b) + begin * size,
                static_cast<char*>(plan.out) + begin * size, n, plan.out_dtype);
    return;
  }
  AddPlan p = plan;  // a copy only where the inputs may need swapping
  order_inputs(p);
  // A plan from plan_add() has a triple with_types() dispatches; for any other, nothing is written.
  with_types<Storage>(p.a_dtype, p.b_dtype, p.out_dtype, [&](auto a, auto b, auto o, auto) {
    using A = decltype(a);
    using B = decltype(b);
    using O = decltype(o);
    if (p.flat) {
      add_row(static_cast<const A*>(p.a) + begin, 1, static_cast<const B*>(p.b) + begin, 1,
              static_cast<O*>(p.out) + begin, 1, n);
    } else {
      add_strided<A, B, O>(p, begin, end);
    }
  });
}

const char* add_cpu_isa() { return loops().isa; }

}  // namespace sum_double
