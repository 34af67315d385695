// AVX2 + FMA peak loops; compiled with -mavx2 -mfma. Called only when
// xsimd::available_architectures() reports FMA3 with AVX2.
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_avx2() {
#if XSIMD_WITH_FMA3_AVX2
  using Arch = xsimd::fma3<xsimd::avx2>;
  static const PeakKernels kernels = {"avx2", flop_per_iteration<Arch>(12), &fma_loop_12<Arch>,
                                      &sum_floats<Arch>};
  return &kernels;
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
