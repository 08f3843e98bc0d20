// Adds a few arrays of each dtype with sum_double::add_cpu and checks every element: exact sums,
// and two ties that show rounding to nearest even (2^p + 1 -> 2^p, 2^p + 3 -> 2^p + 4, for a
// significand of p bits). Exit code 0 when all are right, 1 otherwise.
#include <sum_double/sum_double.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

namespace {

// C++17 has no 16-bit floating-point types: float16 and bfloat16 travel as their bits. Encoding is
// exact for the values used here (no rounding needed); decoding is exact for all.
uint16_t bf16_bits(double x) {
  const float f = static_cast<float>(x);
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  return static_cast<uint16_t>(u >> 16);
}
double bf16_value(uint16_t h) {
  const uint32_t u = uint32_t{h} << 16;
  float f = 0;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
uint16_t f16_bits(double x) {  // zero or a normal float16
  const float f = static_cast<float>(x);
  uint32_t u = 0;
  std::memcpy(&u, &f, sizeof u);
  const uint32_t sign = (u >> 16) & 0x8000;
  if ((u & 0x7fffffff) == 0) return static_cast<uint16_t>(sign);
  const uint32_t exponent = ((u >> 23) & 0xff) - 127 + 15;
  return static_cast<uint16_t>(sign | (exponent << 10) | ((u >> 13) & 0x3ff));
}
double f16_value(uint16_t h) {
  const int exponent = (h >> 10) & 0x1f;
  const double mantissa = h & 0x3ff;
  const double v =
      exponent == 0 ? std::ldexp(mantissa, -24) : std::ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -v : v;
}
template <typename T>
T same(double x) {
  return static_cast<T>(x);
}
template <typename T>
double value(T x) {
  return x;
}

template <typename T, T (*Encode)(double), double (*Decode)(T)>
bool check(const char* name, sum_double::DType dtype, int precision) {
  const double big = std::ldexp(1.0, precision);
  const std::vector<double> a{0, 1, -2, 3.5, 100, big, big};
  const std::vector<double> b{0, 2, 0.25, -3.5, -0.5, 1, 3};
  const std::vector<double> sum{0, 3, -1.75, 0, 99.5, big, big + 4};
  std::vector<T> xa, xb, out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    xa.push_back(Encode(a[i]));
    xb.push_back(Encode(b[i]));
  }
  sum_double::add_cpu(xa.data(), xb.data(), out.data(), static_cast<int64_t>(out.size()), dtype);
  bool ok = true;
  for (size_t i = 0; i < out.size(); ++i) {
    if (Decode(out[i]) != sum[i]) {
      std::printf("%s: %.17g + %.17g gave %.17g, expected %.17g\n", name, a[i], b[i],
                  Decode(out[i]), sum[i]);
      ok = false;
    }
  }
  std::printf("%-8s %s\n", name, ok ? "ok" : "WRONG");
  return ok;
}

}  // namespace

int main() {
  using sum_double::DType;
  bool ok = check<uint16_t, f16_bits, f16_value>("float16", DType::kFloat16, 11);
  ok &= check<uint16_t, bf16_bits, bf16_value>("bfloat16", DType::kBFloat16, 8);
  ok &= check<float, same<float>, value<float>>("float32", DType::kFloat32, 24);
  ok &= check<double, same<double>, value<double>>("float64", DType::kFloat64, 53);
  return ok ? 0 : 1;
}
