# SUM_DOUBLE_CUDA (AUTO, ON, OFF) -> SUM_DOUBLE_WITH_CUDA: whether this build compiles the CUDA
# kernels. AUTO builds them when a CUDA compiler is found, CPU-only otherwise.
set(SUM_DOUBLE_CUDA AUTO CACHE STRING "Build the CUDA kernels: AUTO, ON or OFF")
set_property(CACHE SUM_DOUBLE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(SUM_DOUBLE_WITH_CUDA OFF)
if(NOT SUM_DOUBLE_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # The architectures: a -DCMAKE_CUDA_ARCHITECTURES, else CUDAARCHS, else every one torch ships
    # that this nvcc builds (CudaArchitectures.cmake). The last two are set afresh on each
    # configure, never cached, so a rebuild in the same build directory keeps no stale list.
    if(NOT DEFINED CACHE{CMAKE_CUDA_ARCHITECTURES})
      if(DEFINED ENV{CUDAARCHS})
        set(CMAKE_CUDA_ARCHITECTURES "$ENV{CUDAARCHS}")
      else()
        include(${CMAKE_CURRENT_LIST_DIR}/CudaArchitectures.cmake)
        sum_double_cuda_architectures(CMAKE_CUDA_ARCHITECTURES "${CMAKE_CUDA_COMPILER}"
                                      "${CMAKE_SYSTEM_PROCESSOR}")
      endif()
    endif()
    # An architecture nvcc lacks would stop enable_language(CUDA)'s test compile with only nvcc's
    # "Unsupported gpu architecture".
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code OUTPUT_VARIABLE _nvcc_codes
                    RESULT_VARIABLE _nvcc_listed ERROR_QUIET)
    foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX MATCH "^[0-9]+" _sm "${_arch}")
      if(_nvcc_listed EQUAL 0 AND _sm AND NOT _nvcc_codes MATCHES "sm_${_sm}\n")
        string(STRIP "${_nvcc_codes}" _nvcc_codes)
        string(REPLACE "\n" " " _nvcc_codes "${_nvcc_codes}")
        message(FATAL_ERROR "${CMAKE_CUDA_COMPILER} cannot build sm_${_sm} "
                            "(${CMAKE_CUDA_ARCHITECTURES}); it builds ${_nvcc_codes}. The list "
                            "came from CUDAARCHS or CMAKE_CUDA_ARCHITECTURES (perhaps cached in "
                            "this build directory): unset both, or configure with "
                            "-UCMAKE_CUDA_ARCHITECTURES, to build every architecture it can.")
      endif()
    endforeach()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(SUM_DOUBLE_WITH_CUDA ON)
    # The CUDA runtime linked in, for the build facts and the wheel's SBOM: its own version where
    # the toolkit records it (version.json: NVIDIA's toolkits, ci/cuda12-toolkit.sh's tree, the
    # one ci/cuda-toolkit.sh installs), else the toolkit's.
    set(SUM_DOUBLE_CUDA_RUNTIME_VERSION "${CUDAToolkit_VERSION}")
    if(EXISTS "${CUDAToolkit_BIN_DIR}/../version.json")
      file(READ "${CUDAToolkit_BIN_DIR}/../version.json" _versions)
      string(JSON _cudart ERROR_VARIABLE _no_cudart GET "${_versions}" cuda_cudart version)
      if(NOT _no_cudart)
        set(SUM_DOUBLE_CUDA_RUNTIME_VERSION "${_cudart}")
      endif()
    endif()
  elseif(SUM_DOUBLE_CUDA STREQUAL "ON" OR DEFINED ENV{CUDACXX})
    # A CUDACXX that fails asks for CUDA as plainly as ON does: no quiet CPU-only build.
    message(FATAL_ERROR "No working CUDA compiler (SUM_DOUBLE_CUDA=${SUM_DOUBLE_CUDA}, "
                        "CUDACXX=$ENV{CUDACXX}): put nvcc on PATH or set CUDACXX. If it is set, "
                        "its test compile failed: CMakeFiles/CMakeConfigureLog.yaml in the build "
                        "directory says why (nvcc 12.x takes GCC <= 13: set CUDAHOSTCXX).")
  endif()
endif()
if(SUM_DOUBLE_WITH_CUDA)
  message(STATUS "sum_double: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, toolkit ${CUDAToolkit_BIN_DIR}, "
                 "runtime ${SUM_DOUBLE_CUDA_RUNTIME_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES}")
else()
  message(WARNING "sum_double: building CPU-only (SUM_DOUBLE_CUDA=${SUM_DOUBLE_CUDA}, no CUDA "
                  "compiler used): CUDA tensors will raise a clear error at run time. For CUDA "
                  "kernels put nvcc on PATH (or set CUDACXX); -Ccmake.define.SUM_DOUBLE_CUDA=ON "
                  "makes a missing nvcc an error instead.")
endif()
