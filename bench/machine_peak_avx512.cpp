// AVX-512 peak loops; compiled with -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl.
// Called only when xsimd::available_architectures() reports AVX-512BW.
#include "peak_kernels_impl.h"

const focal_bench::detail::PeakKernels* focal_bench::detail::peak_kernels_avx512() {
#if XSIMD_WITH_AVX512BW
  return make_peak_kernels<xsimd::avx512bw, 16>("avx512");
#else
  return nullptr;
#endif
}
