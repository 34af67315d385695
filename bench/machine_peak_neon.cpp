// NEON peak loops: AArch64 (always has NEON, 32 registers) or 32-bit ARM built with
// -mfpu=neon-vfpv4 (the armhf toolchain's flags; fused vfma, 16 q registers). fmla and
// vfma accumulate into their addend, so the chains are addends (peak_kernels_impl.h).
#include "peak_kernels_impl.h"

const focal_bench::detail::PeakKernels* focal_bench::detail::peak_kernels_neon() {
#if XSIMD_WITH_NEON64
  return make_peak_kernels<xsimd::neon64, 16, true>("neon64");
#elif XSIMD_WITH_NEON
  return make_peak_kernels<xsimd::neon, 12, true>("neon");
#else
  return nullptr;
#endif
}
