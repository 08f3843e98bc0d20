// The op library's facts (library_facts.h), for the module that reports them.
#include "common/library_facts.h"

#include <dlfcn.h>
#include <torch/csrc/stable/library.h>  // TORCH_DYNAMIC_VERSION_CALL_2_13_0, where it exists

#include "build_info.h"
#include "sum_double/add_cpu.h"
#if SUM_DOUBLE_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

const char* sum_double_ops_version() { return SUM_DOUBLE_VERSION; }

bool sum_double_ops_torch_reason_in_errors() {
#ifdef TORCH_DYNAMIC_VERSION_CALL_2_13_0
  // These headers' check looks up the shim that returns the reason at run time (torch >= 2.13).
  static const bool found = [] {
    void* lib = dlopen("libtorch_cpu.so", RTLD_NOW | RTLD_NOLOAD);
    return lib != nullptr && dlsym(lib, "torch_exception_get_what_without_backtrace") != nullptr;
  }();
  return found;
#else
  return false;  // with a 2.10 target, older headers only name the failed call
#endif
}

const char* sum_double_ops_cpu_isa() { return sum_double::add_cpu_isa(); }

int sum_double_ops_cuda_driver_version() {
  int driver = 0;  // also what cudaDriverGetVersion reports, and succeeds with, without a driver
#if SUM_DOUBLE_WITH_CUDA
  if (cudaDriverGetVersion(&driver) != cudaSuccess) driver = 0;
#endif
  return driver;
}
