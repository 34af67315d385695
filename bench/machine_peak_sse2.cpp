// SSE2 peak loops (the x86-64 baseline: no extra flags). SSE2 has no FMA: xsimd::fma is
// a multiply and an add, still 2 FLOP per lane.
#include "peak_kernels_impl.h"

const focal_bench::detail::PeakKernels* focal_bench::detail::peak_kernels_sse2() {
#if XSIMD_WITH_SSE2
  return make_peak_kernels<xsimd::sse2, 12>("sse2");
#else
  return nullptr;
#endif
}
