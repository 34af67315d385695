// Internal to machine_peak: register-only loops of independent int8 dot-product
// instructions, one per instruction set, each in its own translation unit compiled with
// that instruction set's flags (CMakeLists.txt beside it) and called only on a CPU that
// has it (int8_dot_peak.cpp checks).
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal_bench {
namespace detail {

struct Int8DotKernels {
  const char* isa;
  // Integer operations done by one iteration of dot_loop: chains x multiply-adds per
  // instruction x 2 (a multiply-add counts 2, as an FMA lane counts 2 FLOP).
  size_t ops_per_iteration;
  // Independent chains of acc += dot(a, b) over int8 vectors, `iterations` times;
  // returns a value derived from every chain so that none can be removed.
  int32_t (*dot_loop)(size_t iterations, int32_t seed);
};

// Null where this build has no such loop (another CPU family, or a compiler without
// the instructions).
const Int8DotKernels* int8_dot_kernels_avx512vnni();  // vpdpbusd zmm: 64 multiply-adds
const Int8DotKernels* int8_dot_kernels_dotprod();     // AArch64 sdot: 16 multiply-adds

}  // namespace detail
}  // namespace focal_bench
