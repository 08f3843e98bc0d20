# How this project's own binaries are compiled and linked: sum_double_flags (warnings, no
# build-machine paths, SUM_DOUBLE_WERROR) for its sources, sum_double_harden() for what ships.
# Needs TORCH_ROOT (sum_double_torch_stable) for the prefix maps.

option(SUM_DOUBLE_WERROR "Treat warnings in this project's sources as errors (CI turns it on)" OFF)
add_library(sum_double_flags INTERFACE)
# No build-machine paths in the binary: __FILE__ in torch's check macros and ours, the source and
# build dirs, and pip's temporary build environment would make every build different.
set(_prefix_maps -ffile-prefix-map=${PROJECT_SOURCE_DIR}/=
                 -ffile-prefix-map=${PROJECT_BINARY_DIR}/=build/
                 -ffile-prefix-map=${TORCH_ROOT}/=torch/)
set(_host_flags -Wall -Wextra ${_prefix_maps})
if(SUM_DOUBLE_WERROR)
  list(APPEND _host_flags -Werror)
  target_compile_options(sum_double_flags INTERFACE $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()
string(JOIN "," _nvcc_host_flags ${_host_flags})
target_compile_options(sum_double_flags INTERFACE "$<$<COMPILE_LANGUAGE:CXX>:${_host_flags}>"
                                                  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=${_nvcc_host_flags}>)

# Hardening as distributions link (full RELRO, BIND_NOW, no executable stack), and only `map`'s
# symbols exported, which keeps a static libstdc++ whole inside (docs/limits.md). Release builds
# strip at link time, so the build ID hashes no nvcc temporary file name (it holds a PID).
function(sum_double_harden target map)
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
  target_link_options(${target} PRIVATE "LINKER:--version-script=${map}" "LINKER:-z,relro,-z,now"
                      "LINKER:-z,noexecstack" $<$<NOT:$<CONFIG:Debug,RelWithDebInfo>>:LINKER:--strip-all>)
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS "${map}")
endfunction()
