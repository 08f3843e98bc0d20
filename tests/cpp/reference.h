// The scalar reference the launchers are checked against: the four dtypes' formats, their values
// decoded and encoded bit by bit, and the op as torch defines it (its arithmetic: op_value). Its
// float16/bfloat16 conversions are written with frexp/ldexp and an explicit tie rule, not with the
// kernel's bit tricks, so that the two are unlikely to share a mistake.
#pragma once

#include <cstdint>

#include "harness.h"
#include "sum_double/dtype.h"

namespace launcher_test {

using sum_double::DType;

inline constexpr DType kF16 = DType::kFloat16;
inline constexpr DType kBF16 = DType::kBFloat16;
inline constexpr DType kF32 = DType::kFloat32;
inline constexpr DType kF64 = DType::kFloat64;
inline constexpr DType kDTypes[] = {kF16, kBF16, kF32, kF64};

const char* dtype_name(DType t);
int64_t itemsize(DType t);

// Each format is (exponent bits, mantissa bits) in IEEE 754's layout; values are carried as
// doubles, which hold every value of all four formats exactly.
struct Format {
  int exp_bits;
  int mant_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int emin() const { return 1 - bias(); }  // exponent of the smallest normal number
  int emax() const { return bias(); }      // exponent of the largest finite number
  int total_bits() const { return 1 + exp_bits + mant_bits; }
};

Format format_of(DType t);
double decode(uint64_t bits, Format f);
// v to the nearest value of format f, ties to the even one; too large: infinity.
double round_to(double v, Format f);
// The bits of v, which must be a value of f (or an infinity, or a NaN: a quiet one).
uint64_t encode(double v, Format f);

// out's bits for the op of a and b: both converted to out's dtype, combined in float32 (float64
// for a float64 out) by reference.cpp's op_value, and rounded once.
uint64_t reference_op(uint64_t a, DType at, uint64_t b, DType bt, DType ot);
// got == want, except that any NaN matches a NaN (its sign and payload are not promised).
bool same_result(uint64_t got, uint64_t want, DType t);

// The fill of out: a signaling NaN, which no IEEE operation returns, so an element that still
// holds it was not written.
uint64_t poison_of(DType t);
uint64_t negative_zero(DType t);

// Element i of an array of dtype t, as bits (memcpy: no alignment or aliasing assumed).
uint64_t load_bits(const void* base, DType t, int64_t i);
void store_bits(void* base, DType t, int64_t i, uint64_t bits);

// Random inputs: specials, any bit pattern, subnormals, and mostly ordinary numbers near 1.
// Never the poison pattern.
uint64_t random_value(DType t, Rng& rng);

}  // namespace launcher_test
