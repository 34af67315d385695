// The driver's store of one tile row (qgemm_driver.hpp, Micro::store_output_row) in AVX-512, for
// the avx512vnni and amx variants: g++ 12 at -O2 leaves the plain loop scalar (a
// vcvtsi2ss per output), which cost the amx variant more than its products. The bits are
// the plain loop's: the int32 difference wraps the same, vcvtdq2ps rounds to nearest as
// the cast does, and one multiply.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

// y[j] = float(c[j] - offset * sums[j]) * scale for j < cols (cols <= 32); c and sums
// have all 32 lanes (the packed column sums are padded to whole panels).
inline void store_row_avx512(const int32_t* c, const int32_t* sums, int32_t offset, float scale, float* y,
                             size_t cols) {
  const __m512i off = _mm512_set1_epi32(offset);
  const __m512 s = _mm512_set1_ps(scale);
  for (size_t j = 0; j < cols; j += 16) {
    const size_t left = cols - j;
    const __mmask16 mask = left >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
    const __m512i exact =
        _mm512_sub_epi32(_mm512_loadu_si512(c + j), _mm512_mullo_epi32(off, _mm512_loadu_si512(sums + j)));
    _mm512_mask_storeu_ps(y + j, mask, _mm512_mul_ps(_mm512_cvtepi32_ps(exact), s));
  }
}

}  // namespace
}  // namespace kernels
}  // namespace focal
