// The Python extension module sum_double._C. Importing it loads the op library it links
// (libsum_double_ops.so, found through its RUNPATH $ORIGIN/lib), whose static registrations define
// torch.ops.sum_double.add. The module itself only reports how it was built and what the op
// library finds: it never sees a tensor, so it needs none of torch's Python bindings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "build_info.h"
#include "ops/cuda_driver_check.h"
#include "ops/library_facts.h"

namespace py = pybind11;

namespace {

// "75-real,80-real" -> ["75-real", "80-real"]. Only CUDA builds have such a list; a CPU-only build
// leaves it out, or -Wunused-function would warn.
#if SUM_DOUBLE_WITH_CUDA
std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start < list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    if (end > start) items.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return items;
}
#endif

// The newest CUDA the installed NVIDIA driver supports, e.g. "13.0"; None without a driver, and in
// a CPU-only build, which does not look.
py::object cuda_driver_version() {
  const int driver = sum_double_ops_cuda_driver_version();
  if (driver > 0) return py::str(sum_double::cuda_version_string(driver));
  return py::none();
}

}  // namespace

// No state, nothing that needs the GIL: free-threaded Python (3.14t) keeps running without it.
PYBIND11_MODULE(_C, m, py::mod_gil_not_used()) {
  // A module and an op library from two different builds (a partial reinstall, a stray copy on
  // the library path) would report one build's facts and run the other's op.
  if (std::string(sum_double_ops_version()) != SUM_DOUBLE_VERSION) {
    throw py::import_error(std::string("sum_double._C is version ") + SUM_DOUBLE_VERSION +
                           " but the op library it loaded, libsum_double_ops.so, is version " +
                           sum_double_ops_version() + ": reinstall sum-double");
  }
  m.doc() = "Build facts of the sum_double extension; its op is torch.ops.sum_double.add.";
  m.attr("__version__") = SUM_DOUBLE_VERSION;
  m.attr("built_with_torch") = SUM_DOUBLE_BUILT_WITH_TORCH;
  m.attr("stable_abi_target") = SUM_DOUBLE_STABLE_ABI_TARGET;
  m.def("torch_reason_in_errors", &sum_double_ops_torch_reason_in_errors,
        "Whether torch's own reason for a failed call (e.g. 'CUDA out of memory') reaches the op's "
        "errors: it takes torch >= 2.14 headers at build time and torch >= 2.13 at run time.");
#if SUM_DOUBLE_WITH_CUDA
  m.attr("cpu_only") = false;
  m.attr("cuda_version") = SUM_DOUBLE_CUDA_VERSION;
  m.attr("cuda_archs") = py::tuple(py::cast(split(SUM_DOUBLE_CUDA_ARCHS)));
#else
  m.attr("cpu_only") = true;
  m.attr("cuda_version") = py::none();
  m.attr("cuda_archs") = py::tuple();
#endif
  m.def("cuda_driver_version", &cuda_driver_version,
        "The newest CUDA the installed NVIDIA driver supports, e.g. '13.0'; None without a driver "
        "or in a CPU-only build.");
  m.def("cpu_isa", &sum_double_ops_cpu_isa,
        "The loops the CPU kernel runs on this machine: 'avx2+f16c', 'aarch64' or 'baseline' (also "
        "where SUM_DOUBLE_CPU_BASELINE=1 was set when the kernel first ran).");
  // For tests: the op's driver check (cuda_driver_check.h) with versions a test chooses, so its
  // words can be checked on machines without a GPU, or with the right driver.
  m.def("_driver_problem", &sum_double::driver_problem, py::arg("built_with"), py::arg("driver"),
        "What sum_double.add() raises for this CUDA runtime and driver version (CUDART_VERSION, "
        "cudaDriverGetVersion encoding: 13000 is 13.0); '' when the driver can run it.");
}
