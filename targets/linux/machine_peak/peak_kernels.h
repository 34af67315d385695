// Internal to machine_peak: the loops that find this CPU's limits, one set per
// instruction set. Each set lives in its own translation unit compiled with that
// instruction set's flags (CMakeLists.txt beside it), and is chosen at run time, so code
// built for AVX-512 never runs, and is never merged into code that runs, on a CPU
// without it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal_bench {
namespace detail {

struct PeakKernels {
  const char* isa;
  // FLOP done by one iteration of fma_loop (accumulators x lanes x 2).
  size_t flop_per_iteration;
  // Independent chains of a = a * m + c, `iterations` times; returns a value derived
  // from every chain so that none can be removed.
  float (*fma_loop)(size_t iterations, float seed);
  // Sum of `count` floats; `data` is 64-byte aligned.
  float (*sum)(const float* data, size_t count);
};

// Null where this build or this CPU family has no such set.
const PeakKernels* peak_kernels_avx512();
const PeakKernels* peak_kernels_avx2();
const PeakKernels* peak_kernels_sse2();
const PeakKernels* peak_kernels_neon();  // neon64 on AArch64, neon on 32-bit ARM
const PeakKernels* peak_kernels_scalar();

// The int8 dot-product peak's loops (int8_dot_<isa>.cpp, chosen in int8_dot_peak.cpp).
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
