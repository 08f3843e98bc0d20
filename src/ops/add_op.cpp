// torch.ops.sum_double.add: its schema, and the checks, output and launcher plan that its CPU and
// CUDA implementations share. What an op of your own changes is here and in the launchers.
#include "add_op.h"

#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>

#include <algorithm>
#include <array>
#include <exception>
#include <string>

#include "layout.h"
#include "names.h"

STABLE_TORCH_LIBRARY(sum_double, m) {
  m.def(SUM_DOUBLE_OP_NAME SUM_DOUBLE_OP_SIGNATURE);
  m.def("_" SUM_DOUBLE_OP_NAME SUM_DOUBLE_OP_SIGNATURE);  // below autograd (kOpNames)
  m.def(SUM_DOUBLE_OP_NAME ".out" SUM_DOUBLE_OP_OUT_SIGNATURE);
  m.def("_" SUM_DOUBLE_OP_NAME ".out" SUM_DOUBLE_OP_OUT_SIGNATURE);
}

namespace sum_double::op {
namespace {

using torch::stable::Tensor;

// The C shim's codes for what the hot path compares against. They are constants of the running
// torch, but each is a call into it, so they are asked once.
struct ShimCodes {
  int32_t strided = aoti_torch_layout_strided();
  int32_t float16 = aoti_torch_dtype_float16();
  int32_t bfloat16 = aoti_torch_dtype_bfloat16();
  int32_t float32 = aoti_torch_dtype_float32();
  int32_t float64 = aoti_torch_dtype_float64();
};

const ShimCodes& shim_codes() {
  static const ShimCodes codes;
  return codes;
}

DType launcher_dtype(int32_t code, const char* name) {
  const ShimCodes& codes = shim_codes();
  if (code == codes.float32) return DType::kFloat32;
  if (code == codes.bfloat16) return DType::kBFloat16;
  if (code == codes.float16) return DType::kFloat16;
  if (code == codes.float64) return DType::kFloat64;
  fail(kPrefix, "expected ", name,
       " to be a float16, bfloat16, float32 or float64 tensor, but got ", dtype_name(code), "; ",
       dtype_fix(code, name));
}

int32_t shim_dtype(DType dtype) {
  const ShimCodes& codes = shim_codes();
  switch (dtype) {
    case DType::kFloat16:
      return codes.float16;
    case DType::kBFloat16:
      return codes.bfloat16;
    case DType::kFloat32:
      return codes.float32;
    case DType::kFloat64:
      break;
  }
  return codes.float64;
}

Tensor new_tensor(const Inputs& in, const int64_t* strides) {
  // Straight to the allocator through the C shim: torch::stable::new_empty is a boxed dispatcher
  // call, which costs more host time than the whole rest of a small add.
  AtenTensorHandle out = nullptr;
  CHECK_SHIM(aoti_torch_empty_strided(in.dim, in.sizes, strides, in.out_torch_dtype, in.device_type,
                                      in.device_index, &out));
  return Tensor(out);
}

}  // namespace

Facts facts_of(const Tensor& t, const char* name) {
  check_defined(t, name);
  Facts f;
  CHECK_SHIM(aoti_torch_get_layout(t.get(), &f.layout));
  // The dispatcher sends other layouts elsewhere (reject_unsupported.cpp); this keeps the kernels
  // safe should one arrive all the same.
  SUM_DOUBLE_CHECK(f.layout == shim_codes().strided, kPrefix, "expected ", name,
                   " to be a dense (torch.strided) tensor");
  CHECK_SHIM(aoti_torch_get_dtype(t.get(), &f.dtype));
  CHECK_SHIM(aoti_torch_get_device_type(t.get(), &f.device_type));
  CHECK_SHIM(aoti_torch_get_device_index(t.get(), &f.device_index));
  CHECK_SHIM(aoti_torch_get_sizes(t.get(), &f.sizes));
  CHECK_SHIM(aoti_torch_get_strides(t.get(), &f.strides));
  CHECK_SHIM(aoti_torch_get_dim(t.get(), &f.dim));
  return f;
}

Inputs check_inputs(const Tensor& a, const Tensor& b) {
  const Facts fa = facts_of(a, "a");
  const Facts fb = facts_of(b, "b");
  SUM_DOUBLE_CHECK(fa.device_type == fb.device_type && fa.device_index == fb.device_index, kPrefix,
                   "expected a and b on the same device, but got a on ",
                   device_name(fa.device_type, fa.device_index), " and b on ",
                   device_name(fb.device_type, fb.device_index));
  Inputs in;
  in.a_dtype = launcher_dtype(fa.dtype, "a");
  in.b_dtype = launcher_dtype(fb.dtype, "b");
  // torch.result_type: a 0-dim tensor does not raise the dtype of a dimensioned one of its
  // category (all of these are floating), so then the dimensioned one's dtype wins.
  if ((fa.dim == 0) == (fb.dim == 0)) {
    in.out_dtype = promote(in.a_dtype, in.b_dtype);
  } else {
    in.out_dtype = fa.dim == 0 ? in.b_dtype : in.a_dtype;
  }
  in.out_torch_dtype = shim_dtype(in.out_dtype);
  in.device_type = fa.device_type;
  in.device_index = fa.device_index;
  in.a_sizes = fa.sizes;
  in.b_sizes = fb.sizes;
  in.a_strides = fa.strides;
  in.b_strides = fb.strides;
  in.a_dim = fa.dim;
  in.b_dim = fb.dim;
  in.dim = std::max(fa.dim, fb.dim);
  SUM_DOUBLE_CHECK(in.dim <= kMaxDims, kPrefix, "expected at most ", kMaxDims, " dims, but got ",
                   in.dim);
  // Broadcasting, aligned at the last dim: sizes must agree where neither is 1.
  in.numel = 1;
  for (int64_t d = 0; d < in.dim; ++d) {
    const int64_t da = d - (in.dim - fa.dim), db = d - (in.dim - fb.dim);
    const int64_t sa = da >= 0 ? fa.sizes[da] : 1, sb = db >= 0 ? fb.sizes[db] : 1;
    SUM_DOUBLE_CHECK(
        sa == sb || sa == 1 || sb == 1, kPrefix,
        "expected the shapes of a and b to broadcast, but a: ", shape_of(fa.sizes, fa.dim),
        " and b: ", shape_of(fb.sizes, fb.dim), " differ in dim ", d, " of the result (", sa,
        " and ", sb, "), where neither is 1");
    in.sizes[d] = sa == 1 ? sb : sa;
    SUM_DOUBLE_CHECK(!__builtin_mul_overflow(in.numel, in.sizes[d], &in.numel), kPrefix,
                     "the shapes of a: ", shape_of(fa.sizes, fa.dim),
                     " and b: ", shape_of(fb.sizes, fb.dim),
                     " broadcast to more than 2^63 elements");
  }
  return in;
}

Operands make_operands(const Tensor& a, const Tensor& b, const Inputs& in, const Tensor* into) {
  std::array<int64_t, kMaxDims> out_strides;
  Tensor out;
  if (into != nullptr) {  // out=, already checked and resized (out_arg.cpp)
    out = *into;
    int64_t* strides = nullptr;
    CHECK_SHIM(aoti_torch_get_strides(out.get(), &strides));
    std::copy(strides, strides + in.dim, out_strides.begin());
  } else {
    // Allocation fails here, on a full GPU or one already broken by an earlier error. torch's
    // reason may come along (library_facts.h), or only the failed call's name, so say
    // what was being allocated. The Python wrapper turns either into torch.OutOfMemoryError, or
    // raises the earlier error.
    torch_add_strides(in, out_strides.data());
    try {
      out = new_tensor(in, out_strides.data());
    } catch (const std::exception& e) {
      fail(kPrefix, "could not allocate memory for ", shape_of(in.sizes, in.dim), " ",
           dtype_name(in.out_torch_dtype), " elements on ",
           device_name(in.device_type, in.device_index), ": ", e.what());
    }
  }
  Operands operands;  // the plan uninitialised: plan_add fills what the launchers read
  operands.out = out;
  std::array<int64_t, kMaxDims> as, bs;
  broadcast_strides(in.a_sizes, in.a_strides, in.a_dim, in, as.data());
  broadcast_strides(in.b_sizes, in.b_strides, in.b_dim, in, bs.data());
  const AddArgs args{in.dim,         in.sizes,     a.data_ptr(),      in.a_dtype,
                     as.data(),      b.data_ptr(), in.b_dtype,        bs.data(),
                     out.data_ptr(), in.out_dtype, out_strides.data()};
  const char* problem = plan_add(args, operands.plan);
  SUM_DOUBLE_CHECK(problem == nullptr, kPrefix, problem);
  return operands;
}

}  // namespace sum_double::op
