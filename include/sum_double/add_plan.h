// The launchers' general form of out = a + b: any strides (broadcast inputs have stride 0), and a
// dtype per operand. Describe the call with AddArgs, let plan_add() turn it into an AddPlan, then
// run the plan with add_cpu() or add_cuda(). Torch-free: plain pointers and integers.
//
// Values are torch.add's: each input is converted to out's dtype (to nearest even, as torch's
// casts do), the two are added in float32 (float64 when out is float64) and the sum is rounded
// once to out's dtype. For the dtypes torch.add itself picks (torch.result_type), every
// conversion but that rounding is exact; only a 0-dim input of a wider type is rounded first.
#pragma once

#include <cstdint>

#include "sum_double/dtype.h"

namespace sum_double {

// out[i] = a[i] + b[i] for every index i of `sizes`. Element (i_0, ..., i_{dim-1}) of an operand
// is at data + i_0 * strides[0] + ... + i_{dim-1} * strides[dim-1] elements (not bytes).
// Pointers: aligned as their element type requires; they must stay valid until the work is done
// (until add_cpu() returns; until the kernel has run, for add_cuda()). Strides: 0 or more; out's
// must not make its elements overlap each other, a or b (not checked). sizes and strides are
// copied by plan_add(): they need not outlive it.
struct AddArgs {
  int64_t dim;           // number of dims, at most 64; 0 means one element
  const int64_t* sizes;  // out's shape: dim sizes, each 0 or more
  const void* a;
  DType a_dtype;
  const int64_t* a_strides;  // dim strides; 0 along a dim a is broadcast over
  const void* b;
  DType b_dtype;
  const int64_t* b_strides;
  void* out;
  // torch.add's choice: promote(a_dtype, b_dtype), or, when exactly one input is a 0-dim tensor,
  // the other's dtype. Any of a_dtype, b_dtype and promote(a_dtype, b_dtype) is accepted.
  DType out_dtype;
  const int64_t* out_strides;
};

// The dtype torch.result_type gives two dimensioned tensors of these dtypes: the wider, and
// float32 for float16 with bfloat16.
constexpr DType promote(DType x, DType y) {
  if (x == y) return x;
  if (x == DType::kFloat64 || y == DType::kFloat64) return DType::kFloat64;
  return DType::kFloat32;
}

// What plan_add() makes of AddArgs: the dims reordered to out's memory order (fastest first),
// size-1 dims dropped and dims that step through memory together merged into one, so that the
// launchers loop over as few dims as possible. Made only by plan_add(); callers read `numel` (to
// split the work) and nothing else, and the layout may change between minor versions. A plan
// can be run any number of times, from any thread; it owns no memory.
struct AddPlan {
  static constexpr int kMaxDims = 25;  // dims left after merging; torch's CUDA kernels allow 25
  const void* a;
  const void* b;
  void* out;
  DType a_dtype, b_dtype, out_dtype;
  int64_t numel;  // elements of out: add_cpu() takes any [begin, end) of [0, numel)
  int dim;        // 0 when numel <= 1; entries of sizes and strides past dim are unset
  // All three operands are plain arrays of numel elements (one dim of stride 1, one element, or
  // none).
  bool flat;
  int64_t sizes[kMaxDims];
  int64_t strides[3][kMaxDims];  // out, a, b
};

// Fills `plan` and returns nullptr, or returns what is wrong with `args` (a static string) and
// leaves `plan` unusable. It checks the dtypes, sizes, strides' signs and dims (more than 25 that
// do not merge are refused); it cannot check pointers, overlap, or that strides stay inside an
// allocation, which the caller guarantees. Pure: thread-safe, allocates nothing.
const char* plan_add(const AddArgs& args, AddPlan& plan);

}  // namespace sum_double
