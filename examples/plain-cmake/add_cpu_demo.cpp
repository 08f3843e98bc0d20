// Adds a few arrays of each dtype with sum_double::add_cpu and checks every element: exact sums,
// and two ties that show rounding to nearest even (2^p + 1 -> 2^p, 2^p + 3 -> 2^p + 4, for a
// significand of p bits). Then the general entry point: a bias add of a bfloat16 row to a float32
// matrix (broadcast, mixed dtypes, float32 result) and a transposed float16 view plus a float64
// matrix. Exit code 0 when all are right, 1 otherwise.
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

// out = a + b over an AddPlan: shapes and strides in elements, a dtype per operand.
bool check_plans() {
  using sum_double::DType;
  bool ok = true;
  // (2, 3) float32 + (3,) bfloat16 -> (2, 3) float32: b is read with stride 0 along dim 0.
  const std::vector<float> a{1, 2, 3, 4, 5, 6};
  const std::vector<uint16_t> bias{bf16_bits(0.5), bf16_bits(-2), bf16_bits(1024)};
  std::vector<float> out(6);
  const int64_t sizes[] = {2, 3}, a_strides[] = {3, 1}, bias_strides[] = {0, 1};
  sum_double::AddPlan plan;
  const char* problem =
      sum_double::plan_add({2, sizes, a.data(), DType::kFloat32, a_strides, bias.data(),
                            DType::kBFloat16, bias_strides, out.data(), DType::kFloat32, a_strides},
                           plan);
  if (problem != nullptr) {
    std::printf("plan_add: %s\n", problem);
    return false;
  }
  sum_double::add_cpu(plan, 0, plan.numel);
  const std::vector<float> bias_sum{1.5, 0, 1027, 4.5, 3, 1030};
  ok &= out == bias_sum;
  std::printf("%-8s %s\n", "bias", out == bias_sum ? "ok" : "WRONG");

  // The transpose of a (3, 2) float16 matrix, read in place, + a (2, 3) float64 one -> float64.
  std::vector<uint16_t> h;
  for (double x : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) h.push_back(f16_bits(x));  // rows of (3, 2)
  const std::vector<double> d{0.25, 0.25, 0.25, -1, -1, -1};
  std::vector<double> sum(6);
  const int64_t h_strides[] = {1, 2}, d_strides[] = {3, 1};
  problem =
      sum_double::plan_add({2, sizes, h.data(), DType::kFloat16, h_strides, d.data(),
                            DType::kFloat64, d_strides, sum.data(), DType::kFloat64, d_strides},
                           plan);
  if (problem != nullptr) {
    std::printf("plan_add: %s\n", problem);
    return false;
  }
  sum_double::add_cpu(plan, 0, plan.numel);
  const std::vector<double> transposed_sum{1.25, 3.25, 5.25, 1, 3, 5};
  std::printf("%-8s %s\n", "strided", sum == transposed_sum ? "ok" : "WRONG");
  return ok && sum == transposed_sum;
}

}  // namespace

int main() {
  using sum_double::DType;
  bool ok = check<uint16_t, f16_bits, f16_value>("float16", DType::kFloat16, 11);
  ok &= check<uint16_t, bf16_bits, bf16_value>("bfloat16", DType::kBFloat16, 8);
  ok &= check<float, same<float>, value<float>>("float32", DType::kFloat32, 24);
  ok &= check<double, same<double>, value<double>>("float64", DType::kFloat64, 53);
  ok &= check_plans();
  return ok ? 0 : 1;
}
