// SSE2 peak loops (the x86-64 baseline: no extra flags). SSE2 has no FMA: xsimd::fma is
// a multiply and an add, still 2 FLOP per lane.
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_sse2() {
#if XSIMD_WITH_SSE2
  return peak_table<xsimd::sse2, 12>("sse2");
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
