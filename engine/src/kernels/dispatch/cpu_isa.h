// Which SIMD instruction sets this binary has kernels for and this CPU can run. Asked
// once, when a session or the first public kernel call picks its kernel tables; hot
// loops never ask.
#pragma once

namespace focal {

struct CpuIsas {
  bool sse2 = false;
  bool avx2 = false;    // with FMA3 and F16C
  bool avx512 = false;  // F, CD, DQ, BW, VL (x86-64-v4)
  bool neon64 = false;
  bool neon = false;
  bool mve = false;     // Helium, with floating point (Cortex-M55)
};

// Built into this binary and supported by this CPU.
const CpuIsas& usable_isas();

}  // namespace focal
