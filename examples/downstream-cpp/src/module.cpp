// The Python extension module downstream_demo._C. Importing it loads this library, whose static
// registrations (add3*.cpp, add_via_sum_double.cpp) define torch.ops.downstream_demo.*.
#include <pybind11/pybind11.h>

PYBIND11_MODULE(_C, m) {
  m.doc() = "Loads torch.ops.downstream_demo.add3 and .add_via_sum_double.";
  // Whether add3 calls sum-double's CUDA launcher (SumDouble::cuda) or was built CPU-only.
  m.attr("with_cuda") = static_cast<bool>(DOWNSTREAM_DEMO_WITH_CUDA);
}
