// The CPU launcher for plans: mixed dtypes and operands of any strides, a row at a time, one row
// loop per (a, b, out) dtype triple in baseline code (compiled once). Rows of one dtype with
// stride 1 take the per-ISA loops of add_cpu.cpp instead. Torch-free: raw arrays only.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "convert.h"
#include "sum_double/add_cpu.h"
#include "sum_double/combine.h"
#include "sum_double/with_types.h"

namespace sum_double {
namespace {

using namespace detail;

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
  return round_to<O>(combine(load_as<O>(x), load_as<O>(y)));
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
    for (int64_t i = 0; i < n; ++i) out[i] = round_to<O>(combine(x, load_as<O>(b[i])));
  } else if (so == 1 && sa == 1 && sb == 0) {
    const Math<O> y = load_as<O>(*b);
    for (int64_t i = 0; i < n; ++i) out[i] = round_to<O>(combine(load_as<O>(a[i]), y));
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
      add_cpu(a, b, out, n, p.out_dtype);
    } else {
      add_row(a, p.strides[1][0], b, p.strides[2][0], out, p.strides[0][0], n);
    }
    pos += n;
    index[0] = 0;
    for (int d = 1; d < p.dim && ++index[d] == p.sizes[d]; ++d) index[d] = 0;
  }
}

}  // namespace

void add_cpu(const AddPlan& plan, int64_t begin, int64_t end) {
  begin = std::max<int64_t>(begin, 0);
  end = std::min(end, plan.numel);
  if (begin >= end) return;
  const int64_t n = end - begin;
  if (plan.flat && plan.a_dtype == plan.out_dtype && plan.b_dtype == plan.out_dtype) {
    const int64_t size = plan.out_dtype == DType::kFloat64   ? 8
                         : plan.out_dtype == DType::kFloat32 ? 4
                                                             : 2;
    add_cpu(static_cast<const char*>(plan.a) + begin * size,
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

}  // namespace sum_double
