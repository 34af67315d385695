// Arm semihosting (the BKPT 0xAB interface) as qemu-system-arm implements it with
// -semihosting-config enable=on. Used by the runtime only: startup.cpp (faults) and
// syscalls.cpp (stdio, exit). Without a debugger/qemu attached, BKPT would itself fault.
#pragma once
#include <cstdint>

namespace focal::semihosting {

enum Op : std::uint32_t {
  kOpen = 0x01,
  kWrite = 0x05,
  kRead = 0x06,
  kWrite0 = 0x04,           // NUL-terminated string to the debug console
  kExitExtended = 0x20,     // exit with a status code (plain SYS_EXIT has none on A32)
};
constexpr std::uint32_t kApplicationExit = 0x20026;  // ADP_Stopped_ApplicationExit

inline std::uint32_t call(std::uint32_t op, const void* arg) {
  register std::uint32_t r0 asm("r0") = op;
  register const void* r1 asm("r1") = arg;
  // "memory": the host reads and writes the buffers the argument block points at.
  asm volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
  return r0;
}

inline void write0(const char* s) { call(kWrite0, s); }

// qemu exits with `code` (truncated to 8 bits), so ctest sees the firmware's result.
[[noreturn]] inline void exit(int code) {
  const std::uint32_t block[2] = {kApplicationExit, static_cast<std::uint32_t>(code)};
  call(kExitExtended, block);
  for (;;) {}  // not reached under qemu
}

}  // namespace focal::semihosting
