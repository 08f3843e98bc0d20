# SUM_DOUBLE_CUDA (AUTO, ON, OFF) -> SUM_DOUBLE_WITH_CUDA: whether this build compiles the CUDA
# kernels. AUTO builds them when a CUDA compiler is found, CPU-only otherwise.
set(SUM_DOUBLE_CUDA AUTO CACHE STRING "Build the CUDA kernels: AUTO, ON or OFF")
set_property(CACHE SUM_DOUBLE_CUDA PROPERTY STRINGS AUTO ON OFF)
set(SUM_DOUBLE_WITH_CUDA OFF)
if(NOT SUM_DOUBLE_CUDA STREQUAL "OFF")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # pyproject.toml passes the architectures on every configure (CUDAARCHS overrides them); a
    # bare `cmake` configure gets CMake's own rule (CUDAARCHS, else the compiler's default).
    # Checked before enable_language(CUDA), whose test compile stops at an architecture nvcc lacks
    # with only nvcc's "Unsupported gpu architecture".
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-code OUTPUT_VARIABLE _nvcc_codes
                    RESULT_VARIABLE _nvcc_listed ERROR_QUIET)
    foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
      string(REGEX MATCH "^[0-9]+" _sm "${_arch}")
      if(_nvcc_listed EQUAL 0 AND _sm AND NOT _nvcc_codes MATCHES "sm_${_sm}\n")
        string(STRIP "${_nvcc_codes}" _nvcc_codes)
        string(REPLACE "\n" " " _nvcc_codes "${_nvcc_codes}")
        message(FATAL_ERROR "${CMAKE_CUDA_COMPILER} cannot build sm_${_sm} "
                            "(${CMAKE_CUDA_ARCHITECTURES}); it builds ${_nvcc_codes}. Blackwell "
                            "needs nvcc >= 12.8, Jetson Thor (sm_110) 13.0; or set CUDAARCHS, "
                            "e.g. CUDAARCHS='75-real;80-real;86-real;89-real;90'")
      endif()
    endforeach()
    enable_language(CUDA)
    find_package(CUDAToolkit REQUIRED)
    set(SUM_DOUBLE_WITH_CUDA ON)
  elseif(SUM_DOUBLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SUM_DOUBLE_CUDA=ON but no CUDA compiler was found: put nvcc on PATH or "
                        "set CUDACXX.")
  endif()
endif()
if(SUM_DOUBLE_WITH_CUDA)
  message(STATUS "sum_double: CUDA ${CMAKE_CUDA_COMPILER_VERSION}, toolkit ${CUDAToolkit_BIN_DIR}, "
                 "archs ${CMAKE_CUDA_ARCHITECTURES}")
else()
  message(WARNING "sum_double: building CPU-only (SUM_DOUBLE_CUDA=${SUM_DOUBLE_CUDA}, no CUDA "
                  "compiler used). CUDA tensors will raise a clear error at run time.")
endif()
