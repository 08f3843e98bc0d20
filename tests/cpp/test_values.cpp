// The values: the reference checked against the hardware, then pushed through the launchers'
// conversions (every float16 and bfloat16 value, every rounding boundary) and the contiguous
// same-dtype entry point.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "harness.h"
#include "operands.h"
#include "reference.h"
#include "sections.h"
#include "sum_double/add_cpu.h"

namespace launcher_test {

namespace {

// One flat call: out[i] = a[i] + b[0], b broadcast. Used to push chosen values through the
// kernel's conversions.
void run_values(const std::vector<uint64_t>& a_values, const Triple& t, uint64_t b_value,
                Rng& rng) {
  const auto n = static_cast<int64_t>(a_values.size());
  Layout l{{n}, {{{1}, {1}, {0}}}};
  const std::vector<uint64_t> b_values{b_value};
  run_case(l, t, false, 3, rng, &a_values, &b_values);
}

}  // namespace

void test_reference() {
  set_context("the reference's own conversions");
  for (DType t : {kF16, kBF16}) {
    const Format f = format_of(t);
    int bad = 0;
    for (uint64_t bits = 0; bits < 65536; ++bits) {
      const double v = decode(bits, f);
      const bool exp_all_ones =
          ((bits >> f.mant_bits) & ((1u << f.exp_bits) - 1)) == (1u << f.exp_bits) - 1;
      const bool nan_ok = std::isnan(v) == (exp_all_ones && (bits & ((1u << f.mant_bits) - 1)));
      const bool round_trip = std::isnan(v) || (encode(v, f) == bits && round_to(v, f) == v);
      bad += !(nan_ok && round_trip);
    }
    expect(bad == 0, "%s: %d bit patterns do not round-trip", dtype_name(t), bad);
  }
  Rng rng(1);
  int bad = 0;
  for (int i = 0; i < 200000; ++i) {
    const auto bits32 = static_cast<uint32_t>(rng());
    float f;
    std::memcpy(&f, &bits32, 4);
    const uint64_t bits64 = i % 2 ? rng() : random_value(kF64, rng);
    double d;
    std::memcpy(&d, &bits64, 8);
    // The hardware's float32 and float64 against the reference's decoding and rounding.
    const double v32 = decode(bits32, format_of(kF32));
    bad += !(std::isnan(f) ? std::isnan(v32) : v32 == f && encode(v32, format_of(kF32)) == bits32);
    const double v64 = decode(bits64, format_of(kF64));
    bad += !(std::isnan(d) ? std::isnan(v64) : v64 == d && encode(v64, format_of(kF64)) == bits64);
    const double r = round_to(d, format_of(kF32));
    const float hw = static_cast<float>(d);
    bad += !(std::isnan(d) ? std::isnan(r) : r == hw && std::signbit(r) == std::signbit(hw));
#if defined(__FLT16_MANT_DIG__)
    // And the compiler's _Float16 (libgcc's soft-float), where it has one.
    const float h = static_cast<float>(static_cast<_Float16>(f));
    const double mine = round_to(f, format_of(kF16));
    bad += !(std::isnan(f) ? std::isnan(mine) : mine == h && std::signbit(mine) == std::signbit(h));
#endif
  }
  expect(bad == 0, "%d random values disagree with the hardware's conversions", bad);
}

// The same-dtype contiguous entry point, around the vector loops' widths.
void test_simple_entry(Rng& rng) {
  for (DType t : kDTypes) {
    set_context(format("add_cpu(a, b, out, n, %s)", dtype_name(t)));
    sum_double::add_cpu(nullptr, nullptr, nullptr, 0, t);  // n = 0 touches no memory
    for (int64_t n : {0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 64, 100, 1023}) {
      Exact a(n * itemsize(t)), b(n * itemsize(t)), out(n * itemsize(t));
      std::vector<uint64_t> want(n);
      for (int64_t i = 0; i < n; ++i) {
        store_bits(a.p, t, i, random_value(t, rng));
        store_bits(b.p, t, i, random_value(t, rng));
        store_bits(out.p, t, i, poison_of(t));
        want[i] = reference_op(load_bits(a.p, t, i), t, load_bits(b.p, t, i), t, t);
      }
      sum_double::add_cpu(a.p, b.p, out.p, n, t);
      int bad = 0;
      for (int64_t i = 0; i < n; ++i) bad += !same_result(load_bits(out.p, t, i), want[i], t);
      expect(bad == 0, "n = %lld: %d elements wrong", (long long)n, bad);
    }
  }
}

// Every float16 and bfloat16 bit pattern, and the values around each rounding boundary of both,
// through the kernel's conversions: x + (-0) is x, so out holds x converted.
void test_conversions(Rng& rng) {
  std::vector<uint64_t> all16(65536);
  for (uint64_t i = 0; i < 65536; ++i) all16[i] = i;
  for (DType in : {kF16, kBF16}) {
    // (in, o, o): out is b's dtype, so every o is a valid out; and (in, other half, float32).
    for (DType o : kDTypes) run_values(all16, {in, o, o}, negative_zero(o), rng);
    const DType other = in == kF16 ? kBF16 : kF16;
    run_values(all16, {in, other, kF32}, negative_zero(other), rng);
  }
  // Rounding to each half type from float32 and float64: each value of the narrow type, its
  // neighbours in float32, the midpoint to the next value (a tie) and the float32 values beside
  // it; from float64 also the doubles just off the midpoint that float32 rounds onto it (the
  // double rounding c10 does).
  for (DType narrow : {kF16, kBF16}) {
    const Format nf = format_of(narrow);
    std::vector<uint64_t> from32, from64;
    const uint64_t finite = ((uint64_t{1} << nf.exp_bits) - 1) << nf.mant_bits;
    for (uint64_t bits = 0; bits < finite; ++bits) {
      const double v = decode(bits, nf);
      const double next =
          bits + 1 == finite ? std::ldexp(1.0, nf.emax() + 1) : decode(bits + 1, nf);
      const double mid = (v + next) / 2;
      for (const double sign : {1.0, -1.0}) {
        const auto f32 = [&](float x) {
          uint32_t u;
          std::memcpy(&u, &x, 4);
          from32.push_back(u);
        };
        const auto f64 = [&](double x) {
          uint64_t u;
          std::memcpy(&u, &x, 8);
          from64.push_back(u);
        };
        const auto fv = static_cast<float>(sign * v), fm = static_cast<float>(sign * mid);
        f32(fv);
        f32(std::nextafter(fv, INFINITY));
        f32(fm);
        f32(std::nextafter(fm, INFINITY));
        f32(std::nextafter(fm, -INFINITY));
        f64(sign * mid);
        f64(sign * mid * (1 + 0x1p-40));
        f64(sign * mid * (1 - 0x1p-40));
        f64(sign * mid * (1 + 0x1p-20));
      }
    }
    run_values(from32, {kF32, narrow, narrow}, negative_zero(narrow), rng);
    run_values(from64, {kF64, narrow, narrow}, negative_zero(narrow), rng);
  }
  // NaNs of every payload width into the half types, the all-ones ones (0xFFFFFFFF, a common
  // fill) included: their magnitude bits are near INT32_MAX, where integer rounding overflows.
  const std::vector<uint64_t> nans32{0x7FFFFFFF, 0xFFFFFFFF, 0x7FFFF000, 0x7FFFEFFF,
                                     0x7FC00000, 0xFFC00001, 0x7F800001, 0x7FBFFFFF};
  const std::vector<uint64_t> nans64{0x7FFFFFFFFFFFFFFF, 0xFFFFFFFFFFFFFFFF, 0x7FF8000000000000,
                                     0x7FF0000000000001, 0x7FFFFFFFE0000000};
  for (DType narrow : {kF16, kBF16}) {
    run_values(nans32, {kF32, narrow, narrow}, negative_zero(narrow), rng);
    run_values(nans64, {kF64, narrow, narrow}, negative_zero(narrow), rng);
  }
  // float64 to float32: random doubles and ties of float32.
  std::vector<uint64_t> doubles;
  for (int i = 0; i < 60000; ++i) {
    doubles.push_back(random_value(kF64, rng));
    const auto f =
        static_cast<float>(std::ldexp(1.0 + (rng() % (1u << 23)) * 0x1p-23, int(rng() % 60) - 30));
    const double tie = (static_cast<double>(f) + std::nextafter(f, INFINITY)) / 2;
    uint64_t u;
    std::memcpy(&u, &tie, 8);
    doubles.push_back(u);
  }
  run_values(doubles, {kF64, kF32, kF32}, negative_zero(kF32), rng);
}

}  // namespace launcher_test
