# CMake toolchain for ci/aarch64.sh: aarch64 Linux from an x86_64 host, with the distribution's
# cross compiler, and the arm64 Python and libraries unpacked in $ENV{SUM_DOUBLE_AARCH64_SYSROOT}.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_CUDA_HOST_COMPILER aarch64-linux-gnu-g++)
# binfmt_misc hands aarch64 executables (the emulated Python included) to qemu.
set(CMAKE_CROSSCOMPILING_EMULATOR /usr/bin/env)

set(_sysroot "$ENV{SUM_DOUBLE_AARCH64_SYSROOT}")
if(NOT IS_DIRECTORY "${_sysroot}/usr/include")
  message(FATAL_ERROR "SUM_DOUBLE_AARCH64_SYSROOT (${_sysroot}) holds no arm64 sysroot")
endif()
# Searched first, so Python's headers are the sysroot's and never the host's /usr/include.
set(CMAKE_FIND_ROOT_PATH "${_sysroot}")
# Debian's pyconfig.h includes its multiarch twin, which only the sysroot has; after the compiler's
# own directories, so the cross toolchain's libc headers still win.
set(CMAKE_CXX_FLAGS_INIT "-idirafter ${_sysroot}/usr/include")
