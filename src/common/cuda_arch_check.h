// Which of this build's CUDA code a GPU runs, and what to say when it runs none. Plain integers and
// strings in, words out: no torch and no CUDA headers, so sum_double._C can hand it to tests on any
// machine.
#pragma once

#include <string>
#include <vector>

#include "sum_double/op_name.h"

namespace sum_double {

// "70-real,80-real" -> {"70-real", "80-real"}: the CMake architecture list as build_info.h's
// SUM_DOUBLE_CUDA_ARCHS spells it.
inline std::vector<std::string> split_cuda_archs(const std::string& list) {
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

// One entry of that list: "86-real" is machine code only, "90" machine code and PTX, "90-virtual"
// PTX only. `number` is the compute capability without its dot (86, 100, 121).
struct CudaArch {
  int number = 0;
  bool machine_code = false;
  bool ptx = false;
};

// False for an entry this cannot read: CMake's own "native", "all" and "all-major", which it
// resolves only when it compiles, and the "90a"-style variants, which run on fewer GPUs.
inline bool parse_cuda_arch(const std::string& entry, CudaArch& arch) {
  size_t digits = 0;
  while (digits < entry.size() && entry[digits] >= '0' && entry[digits] <= '9') ++digits;
  if (digits < 2 || digits > 3) return false;
  const std::string kind = entry.substr(digits);
  if (!kind.empty() && kind != "-real" && kind != "-virtual") return false;
  arch.number = std::stoi(entry.substr(0, digits));
  arch.machine_code = kind != "-virtual";
  arch.ptx = kind != "-real";
  return true;
}

// The code of `archs` that a GPU of compute capability major.minor runs: "sm_80" (machine code),
// "compute_90" (PTX, which the driver JIT-compiles on first use) or "" (none); "unknown" when none
// matched but the list holds an entry this cannot read, which might. The CUDA rules: machine code
// sm_XY runs on GPUs of major X and minor >= Y (sm_80 on sm_86, never on sm_90), PTX compute_XY on
// any GPU of capability >= X.Y. The driver picks the newest fitting machine code, else the newest
// fitting PTX.
inline std::string cuda_code_for(int major, int minor, const std::string& archs) {
  const int gpu = major * 10 + minor;
  int machine_code = 0;
  int ptx = 0;
  bool unread = false;
  for (const std::string& entry : split_cuda_archs(archs)) {
    CudaArch arch;
    if (!parse_cuda_arch(entry, arch)) {
      unread = true;
      continue;
    }
    if (arch.machine_code && arch.number / 10 == major && arch.number <= gpu &&
        arch.number > machine_code) {
      machine_code = arch.number;
    }
    if (arch.ptx && arch.number <= gpu && arch.number > ptx) ptx = arch.number;
  }
  if (machine_code) return "sm_" + std::to_string(machine_code);
  if (ptx) return "compute_" + std::to_string(ptx);
  return unread ? "unknown" : "";
}

// The machine code and the PTX `archs` carry, as CUDA names them: {"sm_70", "sm_75"} and
// {"compute_90"}. An entry this cannot read goes into the first as it is (CMake's "native" and
// "all" stand for machine code).
struct CudaCode {
  std::vector<std::string> machine_code;
  std::vector<std::string> ptx;
};

inline CudaCode cuda_code_in(const std::string& archs) {
  CudaCode code;
  for (const std::string& entry : split_cuda_archs(archs)) {
    CudaArch arch;
    if (!parse_cuda_arch(entry, arch)) {
      code.machine_code.push_back(entry);
      continue;
    }
    if (arch.machine_code) code.machine_code.push_back("sm_" + std::to_string(arch.number));
    if (arch.ptx) code.ptx.push_back("compute_" + std::to_string(arch.number));
  }
  return code;
}

// "" when GPU `device` (CUDA's name for it, and its compute capability) runs some code of
// `archs`; otherwise what the op raises instead of CUDA's "no kernel image is available
// for execution on the device": the GPU, what the build carries, and how to get code for it.
inline std::string cuda_arch_problem(const std::string& gpu_name, int device, int major, int minor,
                                     const std::string& archs) {
  const std::string code = cuda_code_for(major, minor, archs);
  if (!code.empty() && code != "unknown") return "";
  const auto list = [](const std::vector<std::string>& names) {
    std::string text;
    for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
    return text;
  };
  const CudaCode carried = cuda_code_in(archs);
  const std::string sm = "sm_" + std::to_string(major) + std::to_string(minor);
  return std::string(SUM_DOUBLE_OP_CALLER ": ") +
         "this sum_double has no code that cuda:" + std::to_string(device) + " (" + gpu_name +
         ", " + sm + ") can run: it carries " +
         (carried.machine_code.empty() ? "no machine code"
                                       : "machine code for " + list(carried.machine_code)) +
         (carried.ptx.empty() ? " and no PTX" : " and PTX for " + list(carried.ptx)) +
         ". Build sum_double from source for this GPU with a CUDA toolkit whose nvcc builds " + sm +
         " (nvcc on PATH): CUDAARCHS=" + std::to_string(major) + std::to_string(minor) +
         " pip install --no-binary sum-double sum-double (docs/limits.md)";
}

}  // namespace sum_double
