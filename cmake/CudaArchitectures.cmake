# The GPUs the CUDA kernels are built for, derived from the nvcc that builds them: machine code for
# each architecture below that this nvcc can build, and PTX of the newest of those, which the driver
# compiles for GPUs that come later. CUDA 12.4 gives sm_70-sm_90 + compute_90, CUDA 12.8+ adds
# Blackwell, CUDA 13 drops sm_70 by itself (docs/building.md).
#   include(): sum_double_cuda_architectures(<out-var> <nvcc> <processor>)
#   cmake -DNVCC=<nvcc> [-DPROCESSOR=aarch64] -P cmake/CudaArchitectures.cmake   prints the list

# The architectures a CUDA build of torch >= 2.10 ships machine code for, by processor, plus sm_89
# (Ada runs sm_86 code, but slower). x86_64: V100 (sm_70, CUDA 12 builds of torch) to Blackwell;
# aarch64 hosts: A100, GH200, GB200/GB300 (sm_103 runs sm_100 code), Jetson Thor (sm_110), DGX
# Spark (sm_121 runs sm_120 code).
set(SUM_DOUBLE_CUDA_ARCH_CANDIDATES_x86_64 70 75 80 86 89 90 100 120)
set(SUM_DOUBLE_CUDA_ARCH_CANDIDATES_aarch64 80 90 100 110 120)

function(sum_double_cuda_architectures out nvcc processor)
  if(processor MATCHES "^(aarch64|arm64|ARM64)$")
    set(candidates ${SUM_DOUBLE_CUDA_ARCH_CANDIDATES_aarch64})
  else()
    set(candidates ${SUM_DOUBLE_CUDA_ARCH_CANDIDATES_x86_64})
  endif()
  execute_process(COMMAND "${nvcc}" --list-gpu-code OUTPUT_VARIABLE codes RESULT_VARIABLE failed
                  ERROR_VARIABLE error)
  if(failed)
    message(FATAL_ERROR "${nvcc} --list-gpu-code failed (${failed}): ${error}")
  endif()
  set(archs "")
  foreach(arch IN LISTS candidates)
    if(codes MATCHES "(^|\n)sm_${arch}\n")
      list(APPEND archs ${arch}-real)
    endif()
  endforeach()
  if(NOT archs)
    string(REPLACE "\n" " " codes "${codes}")
    message(FATAL_ERROR "${nvcc} builds none of the architectures sum_double is built for "
                        "(${candidates}); it builds ${codes}")
  endif()
  # The newest gets its PTX too: "90-real" becomes "90", machine code and PTX.
  list(POP_BACK archs newest)
  string(REPLACE "-real" "" newest "${newest}")
  list(APPEND archs ${newest})
  set(${out} "${archs}" PARENT_SCOPE)
endfunction()

if(CMAKE_SCRIPT_MODE_FILE STREQUAL CMAKE_CURRENT_LIST_FILE)
  if(NOT DEFINED NVCC)
    message(FATAL_ERROR "usage: cmake -DNVCC=<nvcc> [-DPROCESSOR=aarch64] -P ${CMAKE_CURRENT_LIST_FILE}")
  endif()
  if(NOT DEFINED PROCESSOR)
    set(PROCESSOR "${CMAKE_HOST_SYSTEM_PROCESSOR}")
  endif()
  sum_double_cuda_architectures(archs "${NVCC}" "${PROCESSOR}")
  message("${archs}")  # to stderr, as script mode prints
endif()
