// SSE2 peak loops (the x86-64 baseline: no extra flags). SSE2 has no FMA: xsimd::fma is
// a multiply and an add, still 2 FLOP per lane.
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_sse2() {
#if XSIMD_WITH_SSE2
  using Arch = xsimd::sse2;
  static const PeakKernels kernels = {"sse2", flop_per_iteration<Arch>(12), &fma_loop_12<Arch>,
                                      &sum_floats<Arch>};
  return &kernels;
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
