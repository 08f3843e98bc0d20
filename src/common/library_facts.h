// What the op library (libsum_double_ops.so) tells the binary that loads it: its only exported
// symbols, in C, so that the Python module (src/module/module.cpp) can report them without torch's
// headers.
#pragma once

#define SUM_DOUBLE_OPS_API extern "C" __attribute__((visibility("default")))

// The version the library was built as; the module refuses to load beside another one.
SUM_DOUBLE_OPS_API const char* sum_double_ops_version();

// Whether a failed torch call's own reason (e.g. "CUDA out of memory") reaches the op's errors in
// this process: it takes headers that fetch it (torch >= 2.14 with a 2.10 target) and a running
// torch that provides it (>= 2.13).
SUM_DOUBLE_OPS_API bool sum_double_ops_torch_reason_in_errors();

// The loops the CPU launcher runs on this machine (add_cpu_isa()).
SUM_DOUBLE_OPS_API const char* sum_double_ops_cpu_isa();

// The newest CUDA the NVIDIA driver supports, as cudaDriverGetVersion reports it (13000 is 13.0);
// 0 without a driver or in a CPU-only build. A version query: no GPU and no CUDA context needed.
SUM_DOUBLE_OPS_API int sum_double_ops_cuda_driver_version();
