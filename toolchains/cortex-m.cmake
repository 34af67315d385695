# Bare-metal Cortex-M toolchain (Debian's gcc-arm-none-eabi + newlib-nano), run under
# qemu-system-arm with semihosting. Pick the core with FOCAL_CORTEX_M_CPU:
#   cmake -B build-m4 -G Ninja -DCMAKE_TOOLCHAIN_FILE=toolchains/cortex-m.cmake -DFOCAL_CORTEX_M_CPU=m4
# Firmware executables come from focal_add_firmware() in targets/cortex-m/CMakeLists.txt
# (vector table, startup, syscalls, linker script); ctest runs them through
# CMAKE_CROSSCOMPILING_EMULATOR below, i.e. `<qemu command> -kernel NAME.elf`.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(FOCAL_CORTEX_M_CPU m4 CACHE STRING "Cortex-M core to build for: m4, m7 or m55")
set_property(CACHE FOCAL_CORTEX_M_CPU PROPERTY STRINGS m4 m7 m55)
option(FOCAL_CORTEX_M_EXCEPTIONS "C++ exceptions and RTTI (off: ~4-9 KiB smaller firmware)" ON)
# try_compile() projects re-read this file; hand them the same choices.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES FOCAL_CORTEX_M_CPU FOCAL_CORTEX_M_EXCEPTIONS)

# Per core: compiler flags, and the qemu board whose memory map
# targets/cortex-m/ld/<board>.ld describes (see FOCAL_CORTEX_M_BOARD).
if(FOCAL_CORTEX_M_CPU STREQUAL "m4")
  # FPv4-SP: single-precision FPU only; doubles are done in software.
  set(_focal_cpu_flags "-mcpu=cortex-m4 -mfpu=fpv4-sp-d16 -mfloat-abi=hard")
  set(FOCAL_CORTEX_M_BOARD mps2-an386)
elseif(FOCAL_CORTEX_M_CPU STREQUAL "m7")
  # FPv5 with double precision (qemu's cortex-m7 has it; newlib multilib v7e-m+dp/hard).
  set(_focal_cpu_flags "-mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
  set(FOCAL_CORTEX_M_BOARD mps2-an500)
elseif(FOCAL_CORTEX_M_CPU STREQUAL "m55")
  # gcc 12: -mcpu=cortex-m55 alone (-mfpu=auto) enables FPv5-DP and MVE integer+float
  # (__ARM_FEATURE_MVE == 3). newlib comes from the v8-m.main+dp/hard multilib.
  set(_focal_cpu_flags "-mcpu=cortex-m55 -mfloat-abi=hard")
  set(FOCAL_CORTEX_M_BOARD mps3-an547)
else()
  message(FATAL_ERROR "FOCAL_CORTEX_M_CPU must be m4, m7 or m55, not '${FOCAL_CORTEX_M_CPU}'")
endif()

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# No _exit/_sbrk in the try_compile link step: only compile-check with static libraries.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Sections per function/object so --gc-sections drops whatever the firmware never uses.
set(_focal_common "${_focal_cpu_flags} -mthumb -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_focal_common}")
set(CMAKE_ASM_FLAGS_INIT "${_focal_common}")
if(FOCAL_CORTEX_M_EXCEPTIONS)
  set(CMAKE_CXX_FLAGS_INIT "${_focal_common}")
else()
  # Saves the unwinder and the exception tables. Code that throws no longer compiles,
  # including xsimd::aligned_allocator (it throws std::bad_alloc): hence default ON.
  set(CMAKE_CXX_FLAGS_INIT "${_focal_common} -fno-exceptions -fno-rtti")
endif()
# gnu++17, not c++17: newlib hides posix_memalign (used by xsimd's headers) under
# __STRICT_ANSI__. CMake emits -std=gnu++17 for CXX_STANDARD 17 while extensions are on;
# a project that sets CMAKE_CXX_EXTENSIONS OFF breaks this.
set(CMAKE_CXX_EXTENSIONS ON)

# nano.specs: newlib-nano (small printf/malloc); -u _printf_float: nano's printf drops
# %f unless this symbol is pulled in. nosys.specs: stubs for syscalls the runtime does not
# implement (targets/cortex-m/syscalls.cpp provides write/read/exit/sbrk via semihosting).
set(CMAKE_EXE_LINKER_FLAGS_INIT
    "-Wl,--gc-sections --specs=nano.specs --specs=nosys.specs -u _printf_float")

# newlib's headers and libraries are the only target ones; host programs only.
set(CMAKE_FIND_ROOT_PATH /usr/lib/arm-none-eabi)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# ctest runs `add_test(COMMAND fw)` as `<this> -kernel fw.elf`, so -kernel must stay last.
# Semihosting output goes to the stdio chardev (qemu's default is stderr); serial and
# monitor are off so nothing else touches stdio. qemu exits with the code the firmware
# passes to SYS_EXIT_EXTENDED (runtime's _exit); a fault handler exits non-zero.
set(CMAKE_CROSSCOMPILING_EMULATOR
    qemu-system-arm -M ${FOCAL_CORTEX_M_BOARD} -nographic -monitor none -serial none
    -chardev stdio,id=sh0,mux=off
    -semihosting-config enable=on,target=native,chardev=sh0
    -kernel)
