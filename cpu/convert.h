// Bit-exact conversions between the half types and float32, shared by the CPU loops: no branches
// (the compiler vectorises the loops that use them) and no calls into libgcc.
#pragma once

#include <cstdint>
#include <cstring>

// The loop bodies are inlined into one function per instruction set, so that each copy is
// compiled, and vectorised, for that instruction set.
#if defined(__GNUC__)
#define SUM_DOUBLE_BODY inline __attribute__((always_inline))
#else
#define SUM_DOUBLE_BODY inline
#endif

namespace sum_double::detail {

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

}  // namespace sum_double::detail
