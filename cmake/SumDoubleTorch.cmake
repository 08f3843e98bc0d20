# torch for code on PyTorch's stable ABI, as sum-double's op layer builds against it; shipped in
# the CMake package (find_package(SumDouble) includes it) for extensions built the same way.
#
#   sum_double_torch_stable(<target> [ABI <major>.<minor>])
#
# makes <target> an INTERFACE library with torch's headers (SYSTEM), libtorch_cpu and
# TORCH_TARGET_VERSION for ABI (default 2.10): the binary then loads under every torch >= ABI,
# whichever torch >= ABI it was compiled against. The torch is the one installed for
# ${Python_EXECUTABLE} (call find_package(Python) first), located without importing it (seconds
# saved; minutes under emulation), and without find_package(Torch), which needs a full CUDA toolkit
# for a CUDA build of torch. Sets TORCH_ROOT, TORCH_VERSION and TORCH_CPU_LIBRARY in the caller's
# scope (a module that must not see torch's headers links the library alone).
function(sum_double_torch_stable target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "ABI" "")
  if(NOT arg_ABI)
    set(arg_ABI 2.10)
  endif()
  if(arg_UNPARSED_ARGUMENTS OR NOT arg_ABI MATCHES "^[0-9]+\\.[0-9]+$")
    message(FATAL_ERROR "sum_double_torch_stable(${target} ${arg_UNPARSED_ARGUMENTS} ABI "
                        "${arg_ABI}): expected a target name, then optionally ABI <major>.<minor>")
  endif()
  if(NOT Python_EXECUTABLE)
    message(FATAL_ERROR "sum_double_torch_stable(): find_package(Python COMPONENTS Interpreter) "
                        "first: torch is looked up for that Python")
  endif()
  # torch's directory and its own version string (2.14.1+cu130: the CUDA build too), read from
  # torch/version.py rather than by importing torch.
  set(_locate [=[
import importlib.util, pathlib, re
root = pathlib.Path(importlib.util.find_spec("torch").submodule_search_locations[0])
print(root, re.search(r"__version__ = '([^']+)'", (root / "version.py").read_text())[1], sep=";")
]=])
  execute_process(COMMAND "${Python_EXECUTABLE}" -c "${_locate}" OUTPUT_VARIABLE _torch
                  RESULT_VARIABLE _no_torch OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(_no_torch)
    message(FATAL_ERROR "torch is not installed for ${Python_EXECUTABLE}; this build needs its "
                        "headers: pip install 'torch>=${arg_ABI}' (or build with build isolation)")
  endif()
  list(GET _torch 0 _root)
  list(GET _torch 1 _version)
  if(_version VERSION_LESS arg_ABI)
    message(FATAL_ERROR "torch ${_version} has no ${arg_ABI} stable ABI: build with torch >= "
                        "${arg_ABI}")
  endif()
  # Python gave the real path: a cross build's find root must not move it into the sysroot.
  find_library(_torch_cpu torch_cpu PATHS "${_root}/lib" NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH
               NO_CACHE REQUIRED)
  # torch/headeronly/version.h's encoding: major in bits 56-63, minor in bits 48-55.
  string(REPLACE "." ";" _abi "${arg_ABI}")
  list(GET _abi 0 _major)
  list(GET _abi 1 _minor)
  math(EXPR _abi_hex "(${_major} << 56) | (${_minor} << 48)" OUTPUT_FORMAT HEXADECIMAL)
  add_library(${target} INTERFACE)
  target_include_directories(${target} SYSTEM INTERFACE "${_root}/include")
  target_compile_definitions(${target} INTERFACE TORCH_TARGET_VERSION=${_abi_hex})
  target_link_libraries(${target} INTERFACE "${_torch_cpu}")
  set(TORCH_ROOT "${_root}" PARENT_SCOPE)
  set(TORCH_VERSION "${_version}" PARENT_SCOPE)
  set(TORCH_CPU_LIBRARY "${_torch_cpu}" PARENT_SCOPE)
endfunction()
