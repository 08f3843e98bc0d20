// plan_add(): the iteration layout both launchers share, worked out once per call on the host.
#include "sum_double/add_plan.h"

#include <array>

namespace sum_double {

const char* plan_add(const AddArgs& args, AddPlan& plan) {
  const auto known = [](DType t) {
    return t == DType::kFloat16 || t == DType::kBFloat16 || t == DType::kFloat32 ||
           t == DType::kFloat64;
  };
  if (!known(args.a_dtype) || !known(args.b_dtype) || !known(args.out_dtype)) {
    return "unknown dtype";
  }
  if (args.out_dtype != args.a_dtype && args.out_dtype != args.b_dtype &&
      args.out_dtype != promote(args.a_dtype, args.b_dtype)) {
    return "out_dtype must be a_dtype, b_dtype or promote(a_dtype, b_dtype)";
  }
  if (args.dim < 0) return "dim must be 0 or more";
  plan.a = args.a;
  plan.b = args.b;
  plan.out = args.out;
  plan.a_dtype = args.a_dtype;
  plan.b_dtype = args.b_dtype;
  plan.out_dtype = args.out_dtype;
  plan.numel = 1;
  plan.dim = 0;
  const std::array<const int64_t*, 3> strides{args.out_strides, args.a_strides, args.b_strides};

  // The dims that take more than one value, fastest-moving in out first: out is written in
  // memory order, and the merge below sees neighbours in memory.
  int kept = 0;
  for (int64_t d = 0; d < args.dim; ++d) {
    if (args.sizes[d] < 0) return "sizes must be 0 or more";
    // Negative strides would need both ends of each offset range checked (the CUDA launcher's
    // 32-bit indexing); torch never makes them.
    if (args.a_strides[d] < 0 || args.b_strides[d] < 0 || args.out_strides[d] < 0) {
      return "strides must be 0 or more";
    }
  }
  for (int64_t d = 0; d < args.dim; ++d) {
    if (args.sizes[d] == 0) {
      plan.numel = 0;
      break;
    }
    if (__builtin_mul_overflow(plan.numel, args.sizes[d], &plan.numel)) {
      return "more than 2^63 elements";
    }
  }
  if (plan.numel == 0) {
    plan.flat = true;
    return nullptr;
  }
  // Walked from the last dim so that ties (equal out strides, which a non-overlapping out cannot
  // have once its size-1 dims are dropped) would keep the row-major order.
  std::array<int64_t, 64> all;  // torch allows 64 dims
  if (args.dim > int64_t(all.size())) return "more than 64 dims";
  int n = 0;
  for (int64_t d = args.dim; d-- > 0;) {
    if (args.sizes[d] != 1) all[n++] = d;
  }
  // Insertion sort: stable, and no allocation (std::stable_sort may allocate).
  for (int i = 1; i < n; ++i) {
    const int64_t d = all[i];
    int j = i;
    for (; j > 0 && args.out_strides[all[j - 1]] > args.out_strides[d]; --j) all[j] = all[j - 1];
    all[j] = d;
  }

  // Merge dim d into the one before it (the faster) when every operand steps through both as
  // through one dim: stride[d] == stride[prev] * size[prev].
  for (int i = 0; i < n; ++i) {
    const int64_t d = all[i];
    if (kept > 0) {
      const int64_t prev = kept - 1;
      bool merges = true;
      for (int op = 0; op < 3; ++op) {
        int64_t step = 0;  // overflowing strides belong to no allocation: they do not merge
        merges = merges &&
                 !__builtin_mul_overflow(plan.strides[op][prev], plan.sizes[prev], &step) &&
                 strides[op][d] == step;
      }
      if (merges) {
        plan.sizes[prev] *= args.sizes[d];
        continue;
      }
    }
    if (kept == AddPlan::kMaxDims) return "more than 25 dims that cannot be merged";
    plan.sizes[kept] = args.sizes[d];
    for (int op = 0; op < 3; ++op) plan.strides[op][kept] = strides[op][d];
    ++kept;
  }
  plan.dim = kept;
  plan.flat = kept == 0 || (kept == 1 && plan.strides[0][0] == 1 && plan.strides[1][0] == 1 &&
                            plan.strides[2][0] == 1);
  return nullptr;
}

}  // namespace sum_double
