# Cross toolchain for 32-bit ARM Linux, hard float (Debian's g++-arm-linux-gnueabihf).
# Tests run under qemu-user: ctest prepends CMAKE_CROSSCOMPILING_EMULATOR to every
# test command (and doctest_discover_tests uses it to list the tests at build time).
#   cmake -B build-armhf -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/arm-linux-gnueabihf.cmake
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(_focal_triple arm-linux-gnueabihf)
set(CMAKE_C_COMPILER ${_focal_triple}-gcc)
set(CMAKE_CXX_COMPILER ${_focal_triple}-g++)
# Debian multiarch: target libraries and CMake package files live in
# /usr/lib/arm-linux-gnueabihf (libxsimd-dev:armhf, libflatbuffers-dev:armhf, ...).
set(CMAKE_LIBRARY_ARCHITECTURE ${_focal_triple})

# Debian's armhf default is -march=armv7-a+fp -mfpu=vfpv3-d16: no NEON at all, so
# xsimd would pick no SIMD arch. neon-vfpv4 (not plain "neon") also gives fused
# multiply-add (vfma), which the kernels rely on to match the other targets.
set(CMAKE_C_FLAGS_INIT "-mfpu=neon-vfpv4")
set(CMAKE_CXX_FLAGS_INIT "-mfpu=neon-vfpv4")

# See aarch64-linux-gnu.cmake for why libraries/headers/packages are searched BOTH.
set(CMAKE_FIND_ROOT_PATH /usr/${_focal_triple})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# -L: where qemu finds the target's dynamic loader and shared libraries.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-arm;-L;/usr/${_focal_triple})
