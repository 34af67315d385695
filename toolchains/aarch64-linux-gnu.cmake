# Cross toolchain for 64-bit ARM Linux (Debian's g++-aarch64-linux-gnu).
# Tests run under qemu-user: ctest prepends CMAKE_CROSSCOMPILING_EMULATOR to every
# test command (and doctest_discover_tests uses it to list the tests at build time).
#   cmake -B build-aarch64 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/aarch64-linux-gnu.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(_focal_triple aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${_focal_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_focal_triple}-g++)
# Debian multiarch: target libraries and their CMake package files live in
# /usr/lib/aarch64-linux-gnu (libxsimd-dev:arm64, libflatbuffers-dev:arm64, ...);
# this makes find_package/find_library search <prefix>/lib/aarch64-linux-gnu.
set(CMAKE_LIBRARY_ARCHITECTURE ${_focal_triple})

# The cross libc lives in /usr/aarch64-linux-gnu; multiarch packages live in the
# host's /usr. Libraries, headers and packages are therefore searched in both
# (BOTH: the root path first, then the normal host prefixes, where the multiarch
# directory keeps amd64 libraries out). Programs (flatc, python, ...) must be host ones.
set(CMAKE_FIND_ROOT_PATH /usr/${_focal_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# -L: where qemu finds the target's dynamic loader and shared libraries.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${_focal_triple})
