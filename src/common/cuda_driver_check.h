// Can the installed NVIDIA driver run the CUDA runtime this binary links? Plain integers in,
// words out: no torch and no CUDA headers, so sum_double._C can hand it to tests on any machine.
#pragma once

#include <string>

#include "sum_double/op_name.h"

namespace sum_double {

// CUDA versions as CUDART_VERSION and cudaDriverGetVersion encode them (1000 * major + 10 * minor:
// 12080 is 12.8), written as "12.8".
inline std::string cuda_version_string(int version) {
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The oldest Linux driver branch for each CUDA major release (NVIDIA's CUDA Compatibility guide,
// "Minor Version Compatibility"); 0 for a release this file does not know.
inline int oldest_driver_branch(int cuda_major) {
  switch (cuda_major) {
    case 11:
      return 450;
    case 12:
      return 525;
    case 13:
      return 580;
    default:
      return 0;
  }
}

// "" when a driver that reports `driver` (cudaDriverGetVersion; 0 means no driver) can run a CUDA
// runtime of version `built_with` (CUDART_VERSION); otherwise what is wrong and what to do.
// Majors are compared: with minor version compatibility a 13.x runtime runs on any driver that
// supports 13.0, and every driver runs the runtimes of older majors.
inline std::string driver_problem(int built_with, int driver) {
  const int needed_major = built_with / 1000;
  if (driver / 1000 >= needed_major) return "";
  const std::string major = std::to_string(needed_major);
  const int branch = oldest_driver_branch(needed_major);
  const std::string which_driver =
      branch ? "CUDA " + major + " needs driver " + std::to_string(branch) + " or newer"
             : "it must support CUDA " + major;
  const std::string built = std::string(SUM_DOUBLE_OP_CALLER ": ") +
                            "this sum_double was built with CUDA " +
                            cuda_version_string(built_with);
  if (driver == 0) {
    return built + ", but no NVIDIA driver was found. Install one (" + which_driver + ").";
  }
  return built + ", but the installed NVIDIA driver supports CUDA " + cuda_version_string(driver) +
         " at most. Update the NVIDIA driver (" + which_driver +
         "), or build sum_double from source with a CUDA toolkit that this driver supports (nvcc "
         "on PATH): pip install --no-binary sum-double sum-double";
}

}  // namespace sum_double
