// The (a, b, out) dtype triples the launchers instantiate, shared by the CPU and CUDA ones: a
// runtime triple in, one call of a generic lambda with the storage types out.
#pragma once

#include <type_traits>

#include "sum_double/add_plan.h"

namespace sum_double {

// Calls f(A{}, B{}, O{}, is_promoted) for the storage types Storage<dtype> of a, b and out, where
// is_promoted is std::true_type when out is promote(a, b) (the layouts torch.result_type gives
// two dimensioned tensors), and returns true; returns false, calling nothing, for a triple
// plan_add() would refuse. Only the accepted triples with a's dtype at most b's (the launchers
// swap the inputs first) are instantiated: 17, not 64.
template <template <DType> class Storage, DType kA, DType kB, typename F>
bool with_out_type(DType out, F&& f) {
  using A = Storage<kA>;
  using B = Storage<kB>;
  constexpr DType kP = promote(kA, kB);
  if (out == kP) {
    f(A{}, B{}, Storage<kP>{}, std::true_type{});
    return true;
  }
  if constexpr (kA != kP) {
    if (out == kA) {
      f(A{}, B{}, A{}, std::false_type{});
      return true;
    }
  }
  if constexpr (kB != kP) {
    if (out == kB) {
      f(A{}, B{}, B{}, std::false_type{});
      return true;
    }
  }
  return false;
}

template <template <DType> class Storage, DType kA, typename F>
bool with_b_type(DType b, DType out, F&& f) {
  switch (b) {
    case DType::kFloat16:
      if constexpr (kA <= DType::kFloat16)
        return with_out_type<Storage, kA, DType::kFloat16>(out, f);
      break;
    case DType::kBFloat16:
      if constexpr (kA <= DType::kBFloat16) {
        return with_out_type<Storage, kA, DType::kBFloat16>(out, f);
      }
      break;
    case DType::kFloat32:
      if constexpr (kA <= DType::kFloat32)
        return with_out_type<Storage, kA, DType::kFloat32>(out, f);
      break;
    case DType::kFloat64:
      return with_out_type<Storage, kA, DType::kFloat64>(out, f);
  }
  return false;
}

template <template <DType> class Storage, typename F>
bool with_types(DType a, DType b, DType out, F&& f) {
  switch (a) {
    case DType::kFloat16:
      return with_b_type<Storage, DType::kFloat16>(b, out, f);
    case DType::kBFloat16:
      return with_b_type<Storage, DType::kBFloat16>(b, out, f);
    case DType::kFloat32:
      return with_b_type<Storage, DType::kFloat32>(b, out, f);
    case DType::kFloat64:
      return with_b_type<Storage, DType::kFloat64>(b, out, f);
  }
  return false;
}

// a + b == b + a bit for bit (but for which NaN, which is not promised), so a plan's inputs can
// be put in the order with_types() takes.
inline void order_inputs(AddPlan& p) {
  if (p.a_dtype > p.b_dtype) {
    const void* a = p.a;
    p.a = p.b;
    p.b = a;
    const DType t = p.a_dtype;
    p.a_dtype = p.b_dtype;
    p.b_dtype = t;
    for (int d = 0; d < p.dim; ++d) {
      const int64_t s = p.strides[1][d];
      p.strides[1][d] = p.strides[2][d];
      p.strides[2][d] = s;
    }
  }
}

}  // namespace sum_double
