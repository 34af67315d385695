// AVX-512 peak loops; compiled with -mavx512f -mavx512cd -mavx512dq -mavx512bw -mavx512vl.
// Called only when xsimd::available_architectures() reports AVX-512BW.
#include "peak_kernels_impl.h"

namespace focal_bench {
namespace detail {

const PeakKernels* peak_kernels_avx512() {
#if XSIMD_WITH_AVX512BW
  return peak_table<xsimd::avx512bw, 16>("avx512");
#else
  return nullptr;
#endif
}

}  // namespace detail
}  // namespace focal_bench
