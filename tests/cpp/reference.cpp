// The scalar reference (reference.h): the formats' bits decoded and encoded with frexp/ldexp,
// rounding to nearest even by an explicit rule, and the op (op_value) in out's dtype.
#include "reference.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace launcher_test {

const char* dtype_name(DType t) {
  switch (t) {
    case kF16:
      return "float16";
    case kBF16:
      return "bfloat16";
    case kF32:
      return "float32";
    case kF64:
      return "float64";
  }
  return "?";
}

int64_t itemsize(DType t) { return t == kF64 ? 8 : t == kF32 ? 4 : 2; }

Format format_of(DType t) {
  switch (t) {
    case kF16:
      return {5, 10};
    case kBF16:
      return {8, 7};
    case kF32:
      return {8, 23};
    case kF64:
      return {11, 52};
  }
  return {0, 0};
}

double decode(uint64_t bits, Format f) {
  const uint64_t mant_mask = (uint64_t{1} << f.mant_bits) - 1;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  const bool negative = (bits >> (f.total_bits() - 1)) & 1;
  const uint64_t exp_field = (bits >> f.mant_bits) & exp_all;
  const uint64_t mant = bits & mant_mask;
  double mag;
  if (exp_field == exp_all) {
    mag = mant == 0 ? INFINITY : NAN;
  } else if (exp_field == 0) {  // zero and subnormals: mant units of 2^(emin - mant_bits)
    mag = std::ldexp(static_cast<double>(mant), f.emin() - f.mant_bits);
  } else {  // 1.mant times 2^(exp_field - bias)
    mag = std::ldexp(static_cast<double>((uint64_t{1} << f.mant_bits) + mant),
                     static_cast<int>(exp_field) - f.bias() - f.mant_bits);
  }
  return negative ? -mag : mag;
}

// Works on the magnitude scaled so that f's last place at v's exponent is 1, where the tie rule
// is explicit.
double round_to(double v, Format f) {
  if (std::isnan(v) || std::isinf(v) || v == 0) return v;
  const double mag = std::fabs(v);
  int e;
  std::frexp(mag, &e);  // mag in [2^(e-1), 2^e)
  const int exponent = std::max(e - 1, f.emin());
  const int unit = exponent - f.mant_bits;       // log2 of the last place at that exponent
  const double scaled = std::ldexp(mag, -unit);  // exact: scaling by a power of two
  double whole = std::floor(scaled);
  const double frac = scaled - whole;  // exact: scaled has at most 53 significant bits
  if (frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2.0) == 1.0)) whole += 1;
  double r = std::ldexp(whole, unit);
  if (r >= std::ldexp(1.0, f.emax() + 1)) r = INFINITY;
  return std::copysign(r, v);
}

uint64_t encode(double v, Format f) {
  const uint64_t sign = std::signbit(v) ? uint64_t{1} << (f.total_bits() - 1) : 0;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  if (std::isnan(v)) return (exp_all << f.mant_bits) | (uint64_t{1} << (f.mant_bits - 1));
  if (std::isinf(v)) return sign | (exp_all << f.mant_bits);
  const double mag = std::fabs(v);
  if (mag == 0) return sign;
  int e;
  std::frexp(mag, &e);
  const int exponent = e - 1;
  if (exponent < f.emin()) {
    const double units = std::ldexp(mag, f.mant_bits - f.emin());
    return sign | static_cast<uint64_t>(units);
  }
  const double fraction = std::ldexp(mag, -exponent) - 1.0;  // in [0, 1)
  const auto mant = static_cast<uint64_t>(std::ldexp(fraction, f.mant_bits));
  return sign | (static_cast<uint64_t>(exponent + f.bias()) << f.mant_bits) | mant;
}

namespace {

double value_of(uint64_t bits, DType t) { return decode(bits, format_of(t)); }
bool is_nan(uint64_t bits, DType t) { return std::isnan(value_of(bits, t)); }

// An input converted to out's dtype as the launchers promise: to nearest even, and a float64
// going to a half type through float32 first, as c10's casts do.
double convert(double v, DType from, DType to) {
  if (to == kF64 || from == to) return v;
  if (to == kF32) return round_to(v, format_of(kF32));
  if (from == kF64) v = round_to(v, format_of(kF32));
  return round_to(v, format_of(to));
}

// The op's arithmetic on one element, in the type it is computed in (float, double for a float64
// out): the one line of the reference an op of your own changes, as it does
// include/sum_double/combine.h.
template <typename T>
T op_value(T x, T y) {
  return x + y;
}

}  // namespace

uint64_t reference_op(uint64_t a, DType at, uint64_t b, DType bt, DType ot) {
  const double x = convert(value_of(a, at), at, ot);
  const double y = convert(value_of(b, bt), bt, ot);
  if (ot == kF64) return encode(op_value(x, y), format_of(kF64));
  const float r = op_value(static_cast<float>(x), static_cast<float>(y));  // exact conversions
  return encode(round_to(r, format_of(ot)), format_of(ot));
}

bool same_result(uint64_t got, uint64_t want, DType t) {
  return is_nan(want, t) ? is_nan(got, t) : got == want;
}

// Signaling: the quiet bit clear, a payload that is not zero.
uint64_t poison_of(DType t) {
  switch (t) {
    case kF16:
      return 0x7D55;
    case kBF16:
      return 0x7F95;
    case kF32:
      return 0x7F955555;
    case kF64:
      return 0x7FF5555555555555;
  }
  return 0;
}

uint64_t negative_zero(DType t) { return uint64_t{1} << (format_of(t).total_bits() - 1); }

uint64_t load_bits(const void* base, DType t, int64_t i) {
  const char* p = static_cast<const char*>(base) + i * itemsize(t);
  switch (itemsize(t)) {
    case 2: {
      uint16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      uint32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      uint64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

void store_bits(void* base, DType t, int64_t i, uint64_t bits) {
  char* p = static_cast<char*>(base) + i * itemsize(t);
  switch (itemsize(t)) {
    case 2: {
      const auto v = static_cast<uint16_t>(bits);
      std::memcpy(p, &v, 2);
      break;
    }
    case 4: {
      const auto v = static_cast<uint32_t>(bits);
      std::memcpy(p, &v, 4);
      break;
    }
    default:
      std::memcpy(p, &bits, 8);
  }
}

// Specials (zeros, infinities, NaNs, extremes) 1 in 10, numbers near 1 (whose sums round) most
// often.
uint64_t random_value(DType t, Rng& rng) {
  const Format f = format_of(t);
  const uint64_t mant_mask = (uint64_t{1} << f.mant_bits) - 1;
  const uint64_t exp_all = (uint64_t{1} << f.exp_bits) - 1;
  const uint64_t sign = (rng() & 1) << (f.total_bits() - 1);
  const uint64_t all_mask =
      f.total_bits() == 64 ? ~uint64_t{0} : (uint64_t{1} << f.total_bits()) - 1;
  uint64_t bits;
  const int kind = static_cast<int>(rng() % 20);
  if (kind < 2) {
    switch (rng() % 8) {
      case 0:
        bits = 0;
        break;
      case 1:
        bits = exp_all << f.mant_bits;
        break;
      case 2:
        bits = (exp_all << f.mant_bits) | (uint64_t{1} << (f.mant_bits - 1)) |
               (rng() & (mant_mask >> 1));
        break;
      case 3:
        bits = ((exp_all - 1) << f.mant_bits) | mant_mask;
        break;
      case 4:
        bits = uint64_t{1} << f.mant_bits;
        break;
      case 5:
        bits = 1;
        break;
      case 6:
        bits = mant_mask;
        break;
      default:
        bits = static_cast<uint64_t>(f.bias()) << f.mant_bits;
    }
    bits |= sign;
  } else if (kind < 7) {
    bits = rng() & all_mask;
  } else if (kind < 9) {
    bits = sign | ((rng() % 3) << f.mant_bits) | (rng() & mant_mask);
  } else {
    const auto exp_field = static_cast<uint64_t>(f.bias() + static_cast<int>(rng() % 9) - 4);
    bits = sign | (exp_field << f.mant_bits) | (rng() & mant_mask);
  }
  if (bits == poison_of(t)) bits ^= 1;
  return bits;
}

}  // namespace launcher_test
