// AVX2 + FMA peak loops; compiled with -mavx2 -mfma. Called only when
// xsimd::available_architectures() reports FMA3 with AVX2.
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_avx2() {
#if XSIMD_WITH_FMA3_AVX2
  return peak_table<xsimd::fma3<xsimd::avx2>, 12>("avx2");
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
