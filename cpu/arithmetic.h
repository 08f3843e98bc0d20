// The op's arithmetic on one element, in the type it is computed in (float32 for the half types,
// as torch's opmath; float64 for float64). What an op of your own changes in the CPU launcher,
// with the two SIMD half-type loops of add_cpu.cpp (F16C, NEON), which spell it as an intrinsic.
#pragma once

#include "convert.h"

namespace sum_double::detail {

template <typename T>
SUM_DOUBLE_BODY T combine(T x, T y) {
  return x + y;
}

}  // namespace sum_double::detail
