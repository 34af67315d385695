// NEON peak loops: AArch64 (always has NEON, 32 registers) or 32-bit ARM built with
// -mfpu=neon-vfpv4 (the armhf toolchain's flags; fused vfma, 16 q registers). fmla and
// vfma accumulate into their addend, so the chains are addends (peak_kernels_impl.h).
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_neon() {
#if XSIMD_WITH_NEON64
  using Arch = xsimd::neon64;
  static const PeakKernels kernels = {"neon64", flop_per_iteration<Arch>(16),
                                      &fma_loop_16<Arch, true>, &sum_floats<Arch>};
  return &kernels;
#elif XSIMD_WITH_NEON
  using Arch = xsimd::neon;
  static const PeakKernels kernels = {"neon", flop_per_iteration<Arch>(12),
                                      &fma_loop_12<Arch, true>, &sum_floats<Arch>};
  return &kernels;
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
