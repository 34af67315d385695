// RAM a firmware actually used, for holding RAM budgets on the device: static data
// (.data + .bss), the heap's high-water mark (newlib's stdio buffers; the engine itself
// never allocates) and the stack's, measured by painting the stack at reset and finding
// the deepest word overwritten. M4 and M7 have no stack limit register, so a firmware
// should compare stack_peak_bytes() with stack_reserved_bytes() itself.
#pragma once
#include <cstddef>

namespace focal::cortex_m {

std::size_t static_ram_bytes();     // .data + .bss
std::size_t heap_peak_bytes();      // highest sbrk break above the heap's start
std::size_t stack_peak_bytes();     // deepest stack use since reset
std::size_t stack_reserved_bytes(); // focal_add_firmware's STACK_SIZE (default 64 KiB)

}  // namespace focal::cortex_m
