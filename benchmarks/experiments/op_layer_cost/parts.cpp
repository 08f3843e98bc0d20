// The op layer's parts, and two floor ops, on the LibTorch stable ABI like src/ops: what timer.cpp
// times next to the whole op. Built against this tree's src/ops (run.sh).
#include <torch/csrc/stable/library.h>
#include <torch/csrc/stable/ops.h>
#include <torch/csrc/stable/tensor.h>

#include <cstdint>

#include "add_op.h"
#include "sum_double/add_cpu.h"

using sum_double::op::check_inputs;
using sum_double::op::make_operands;
using torch::stable::Tensor;

namespace {

Tensor* a_;
Tensor* b_;
Tensor* out_;

// Floors: the dispatcher and the stable ABI's boxing around a kernel that does nothing, and around
// one that allocates its output as the op does. Nothing the op layer does can go below them.
Tensor first(const Tensor& a, const Tensor& /*b*/) { return a; }

Tensor allocate(const Tensor& a, const Tensor& /*b*/) {
  const int64_t size = a.numel(), stride = 1;
  AtenTensorHandle out = nullptr;
  aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float32(),
                           aoti_torch_device_type_cpu(), 0, &out);
  return Tensor(out);
}

}  // namespace

STABLE_TORCH_LIBRARY(op_layer_cost, m) {
  m.def("first(Tensor a, Tensor b) -> Tensor");
  m.def("allocate(Tensor a, Tensor b) -> Tensor");
}
STABLE_TORCH_LIBRARY_IMPL(op_layer_cost, CPU, m) {
  m.impl("first", TORCH_BOX(&first));
  m.impl("allocate", TORCH_BOX(&allocate));
}

// Borrows two float32 CPU tensors of one shape (new references; they outlive the timing).
__attribute__((visibility("default"))) void parts_setup(AtenTensorHandle a, AtenTensorHandle b) {
  AtenTensorHandle a_ref = nullptr, b_ref = nullptr;
  aoti_torch_new_tensor_handle(a, &a_ref);
  aoti_torch_new_tensor_handle(b, &b_ref);
  a_ = new Tensor(a_ref);
  b_ = new Tensor(b_ref);
  out_ = new Tensor(torch::stable::empty_like(*a_));
}

__attribute__((visibility("default"))) extern const char* const part_names[] = {
    "check_inputs",
    "make_operands (allocates the output, plans)",
    "one Tensor::sizes()",
    "one Tensor::scalar_type()",
    "aoti_torch_empty_strided",
    "torch::stable::parallel_for + loop",
    "loop (add_cpu)",
};
__attribute__((visibility("default"))) extern const int num_parts =
    sizeof(part_names) / sizeof(part_names[0]);

__attribute__((visibility("default"))) void part(int which) {
  const Tensor& a = *a_;
  const Tensor& b = *b_;
  const int64_t n = a.numel();
  switch (which) {
    case 0: {
      volatile int64_t numel = check_inputs(a, b).numel;
      (void)numel;
      break;
    }
    case 1: {
      static const sum_double::op::Inputs inputs = check_inputs(a, b);
      const auto operands = make_operands(a, b, inputs);
      (void)operands;
      break;
    }
    case 2: {
      volatile size_t dim = a.sizes().size();
      (void)dim;
      break;
    }
    case 3: {
      volatile auto dtype = a.scalar_type();
      (void)dtype;
      break;
    }
    case 4: {
      const int64_t size = n, stride = 1;
      AtenTensorHandle t = nullptr;
      aoti_torch_empty_strided(1, &size, &stride, aoti_torch_dtype_float32(),
                               aoti_torch_device_type_cpu(), 0, &t);
      aoti_torch_delete_tensor_object(t);
      break;
    }
    case 5: {
      const auto* pa = static_cast<const float*>(a.data_ptr());
      const auto* pb = static_cast<const float*>(b.data_ptr());
      auto* po = static_cast<float*>(out_->data_ptr());
      torch::stable::parallel_for(0, n, 32768, [&](int64_t begin, int64_t end) {
        sum_double::add_cpu(pa + begin, pb + begin, po + begin, end - begin,
                            sum_double::DType::kFloat32);
      });
      break;
    }
    case 6:
      sum_double::add_cpu(a.data_ptr(), b.data_ptr(), out_->data_ptr(), n,
                          sum_double::DType::kFloat32);
      break;
  }
}
