// The Python extension module sum_double._C. Importing it loads the op library it links
// (libsum_double_ops.so, found through its RUNPATH $ORIGIN/lib), whose static registrations define
// torch.ops.sum_double.add. The module itself only reports how it was built and what the op
// library finds: it never sees a tensor, so it needs none of torch's Python bindings.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "build_info.h"
#include "common/cuda_arch_check.h"
#include "common/cuda_driver_check.h"
#include "common/library_facts.h"

namespace py = pybind11;

namespace {

py::tuple to_tuple(const std::vector<std::string>& items) { return py::tuple(py::cast(items)); }

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
  m.doc() = "Build facts of the sum_double extension and of the op library it loads.";
  m.attr("__version__") = SUM_DOUBLE_VERSION;
  m.attr("built_with_torch") = SUM_DOUBLE_BUILT_WITH_TORCH;
  m.attr("stable_abi_target") = SUM_DOUBLE_STABLE_ABI_TARGET;
  m.def("torch_reason_in_errors", &sum_double_ops_torch_reason_in_errors,
        "Whether torch's own reason for a failed call (e.g. 'CUDA out of memory') reaches the op's "
        "errors: it takes torch >= 2.14 headers at build time and torch >= 2.13 at run time.");
#if SUM_DOUBLE_WITH_CUDA
  m.attr("cpu_only") = false;
  m.attr("cuda_version") = SUM_DOUBLE_CUDA_VERSION;
  m.attr("cuda_runtime_version") = SUM_DOUBLE_CUDA_RUNTIME_VERSION;
#else
  m.attr("cpu_only") = true;
  m.attr("cuda_version") = py::none();
  m.attr("cuda_runtime_version") = py::none();
#endif
  // A CPU-only build's list is empty, and so are these.
  const sum_double::CudaCode code = sum_double::cuda_code_in(SUM_DOUBLE_CUDA_ARCHS);
  m.attr("cuda_archs") = to_tuple(sum_double::split_cuda_archs(SUM_DOUBLE_CUDA_ARCHS));
  m.attr("cuda_machine_code") = to_tuple(code.machine_code);
  m.attr("cuda_ptx") = to_tuple(code.ptx);
  m.def("cuda_driver_version", &cuda_driver_version,
        "The newest CUDA the installed NVIDIA driver supports, e.g. '13.0'; None without a driver "
        "or in a CPU-only build.");
  m.def("cpu_isa", &sum_double_ops_cpu_isa,
        "The loops the CPU kernel runs on this machine: 'avx2+f16c', 'aarch64' or 'baseline' (also "
        "where SUM_DOUBLE_CPU_BASELINE=1 was set when the kernel first ran).");
  // For tests: the op's driver check (cuda_driver_check.h) with versions a test chooses, so its
  // words can be checked on machines without a GPU, or with the right driver.
  m.def("_driver_problem", &sum_double::driver_problem, py::arg("built_with"), py::arg("driver"),
        "What the op raises for this CUDA runtime and driver version (CUDART_VERSION, "
        "cudaDriverGetVersion encoding: 13000 is 13.0); '' when the driver can run it.");
  m.def("_oldest_driver_branch", &sum_double::oldest_driver_branch, py::arg("cuda_major"),
        "The oldest Linux NVIDIA driver branch that runs a CUDA runtime of this major release "
        "(12: 525, 13: 580); 0 for one it does not know.");
  // Likewise the architecture rule (cuda_arch_check.h), for GPUs and lists no machine here has;
  // `python -m sum_double info` asks it which code each GPU runs.
  m.def("_cuda_code_for", &sum_double::cuda_code_for, py::arg("major"), py::arg("minor"),
        py::arg("archs"),
        "The code of `archs` (comma-separated CMake entries) a GPU of compute capability "
        "major.minor runs: 'sm_80' (machine code), 'compute_90' (PTX), '' (none), or 'unknown' "
        "when the list holds an entry the rule cannot read, e.g. 'native'.");
  m.def("_cuda_arch_problem", &sum_double::cuda_arch_problem, py::arg("gpu_name"),
        py::arg("device"), py::arg("major"), py::arg("minor"), py::arg("archs"),
        "What the op raises when cuda:<device> finds no code of `archs` to run; '' when "
        "it has some.");
}
