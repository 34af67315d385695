// NEON peak loops: AArch64 (always has NEON, 32 registers) or 32-bit ARM built with
// -mfpu=neon-vfpv4 (the armhf toolchain's flags; fused vfma, 16 q registers). fmla and
// vfma accumulate into their addend, so the chains are addends (peak_kernels_impl.h).
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_neon() {
#if XSIMD_WITH_NEON64
  return peak_table<xsimd::neon64, 16, true>("neon64");
#elif XSIMD_WITH_NEON
  return peak_table<xsimd::neon, 12, true>("neon");
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
