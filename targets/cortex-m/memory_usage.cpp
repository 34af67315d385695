#include "memory_usage.h"

#include <cstdint>

extern "C" {
extern char __data_start__[], __bss_end__[], __heap_start__[];  // ld/sections.ld
extern char __stack_top__[], __stack_limit__[];
char* focal_heap_peak();  // syscalls.cpp: the highest sbrk break so far
}

namespace focal::cortex_m {

// startup.cpp paints the stack with this word before main.
constexpr std::uint32_t kStackPaint = 0x57AC57ACu;

std::size_t static_ram_bytes() { return static_cast<std::size_t>(__bss_end__ - __data_start__); }

std::size_t heap_peak_bytes() { return static_cast<std::size_t>(focal_heap_peak() - __heap_start__); }

std::size_t stack_peak_bytes() {
  const auto* word = reinterpret_cast<const std::uint32_t*>(__stack_limit__);
  const auto* top = reinterpret_cast<const std::uint32_t*>(__stack_top__);
  while (word < top && *word == kStackPaint) ++word;  // the stack grows down to the limit
  return static_cast<std::size_t>(reinterpret_cast<const char*>(top) - reinterpret_cast<const char*>(word));
}

std::size_t stack_reserved_bytes() { return static_cast<std::size_t>(__stack_top__ - __stack_limit__); }

}  // namespace focal::cortex_m

// Called by Reset_Handler on the stack it runs on: paints from the limit up to a little
// below the current stack pointer (the frames above it are live).
extern "C" void focal_paint_stack() {
  char* sp;
  asm volatile("mov %0, sp" : "=r"(sp));
  auto* word = reinterpret_cast<std::uint32_t*>(__stack_limit__);
  auto* end = reinterpret_cast<std::uint32_t*>(sp - 256);  // margin: this frame, memset's
  while (word < end) *word++ = focal::cortex_m::kStackPaint;
}
