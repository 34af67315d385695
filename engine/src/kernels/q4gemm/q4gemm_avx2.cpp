// The AVX2 int4 variant. A quad's 64 bytes are two ymm: the first holds outputs 0..7 (low
// nibbles) and 16..23 (high), the second 8..15 and 24..31, each output 4 k of one int32
// lane. vpmaddubsw multiplies the nibbles u = q + 8 (unsigned) by the row's q (signed) and
// adds pairs into int16 (|pair| <= 2 x 15 x 127, no saturation), vpmaddwd by ones adds the
// pairs into the int32 lane: exact sums, then the group's offset and scale as the
// reference folds them (FMA). Rows two at a time: 16 ymm registers hold two rows' sums.
#include <immintrin.h>

#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// One row's sums: outputs 0..7, 8..15, 16..23, 24..31 (int32 of the group, f32 totals).
struct RowSums {
  __m256i s0, s1, s2, s3;
  __m256 f0, f1, f2, f3;
};

inline __m256i dot(__m256i u, __m256i x) {
  return _mm256_madd_epi16(_mm256_maddubs_epi16(u, x), _mm256_set1_epi16(1));
}

inline void accumulate(RowSums& s, const int8_t* x, size_t c, __m256i a, __m256i b) {
  int32_t bytes = 0;
  std::memcpy(&bytes, x + c * kQ4QuadK, 4);
  const __m256i r = _mm256_set1_epi32(bytes);
  const __m256i mask = _mm256_set1_epi8(0x0F);
  s.s0 = _mm256_add_epi32(s.s0, dot(_mm256_and_si256(a, mask), r));
  s.s1 = _mm256_add_epi32(s.s1, dot(_mm256_and_si256(b, mask), r));
  s.s2 = _mm256_add_epi32(s.s2, dot(_mm256_and_si256(_mm256_srli_epi16(a, 4), mask), r));
  s.s3 = _mm256_add_epi32(s.s3, dot(_mm256_and_si256(_mm256_srli_epi16(b, 4), mask), r));
}

inline __m256 folded(__m256i sum, __m256i offset, const uint8_t* halves, __m256 f) {
  const __m256 scale = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves)));
  return _mm256_fmadd_ps(_mm256_cvtepi32_ps(_mm256_sub_epi32(sum, offset)), scale, f);
}

inline void fold_group(RowSums& s, int32_t group_sum, const uint8_t* scales) {
  const __m256i offset = _mm256_set1_epi32(int32_t(kQ4Offset) * group_sum);
  s.f0 = folded(s.s0, offset, scales, s.f0);
  s.f1 = folded(s.s1, offset, scales + 16, s.f1);
  s.f2 = folded(s.s2, offset, scales + 32, s.f2);
  s.f3 = folded(s.s3, offset, scales + 48, s.f3);
  s.s0 = s.s1 = s.s2 = s.s3 = _mm256_setzero_si256();
}

inline void store_row(const RowSums& s, float* f) {
  _mm256_store_ps(f, s.f0);
  _mm256_store_ps(f + 8, s.f1);
  _mm256_store_ps(f + 16, s.f2);
  _mm256_store_ps(f + 24, s.f3);
}

// kRows (1 or 2) rows from row0 over the whole panel.
template <size_t kRows>
void rows_pass(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
  const size_t k = p.rows.gemm.k, stride = p.rows.a_stride, groups = p.groups;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.rows.a + row0 * stride);
  const int32_t* sums = p.group_sums + row0 * groups;
  RowSums r0{}, r1{};
  const uint8_t* group = panel;
  for (size_t g = 0; g < groups; ++g) {
    const size_t quads = q4_group_quads(k, p.group, g);
    const int8_t* x = a + g * p.group;
    for (size_t c = 0; c < quads; ++c) {
      const uint8_t* quad = group + c * kQ4QuadBytes;
      __builtin_prefetch(quad + kQ4PrefetchBytes);
      const __m256i lo = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(quad));
      const __m256i hi = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(quad + 32));
      accumulate(r0, x, c, lo, hi);
      if constexpr (kRows > 1) accumulate(r1, x + stride, c, lo, hi);
    }
    const uint8_t* scales = group + quads * kQ4QuadBytes;
    fold_group(r0, sums[g], scales);
    if constexpr (kRows > 1) fold_group(r1, sums[groups + g], scales);
    group += q4_group_stride(p.group);
  }
  store_row(r0, f);
  if constexpr (kRows > 1) store_row(r1, f + kGemmPanel);
}

struct Avx2Micro {
  template <size_t kRows>
  static void panel_rows(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
    if constexpr (kRows == 1) {
      rows_pass<1>(p, panel, row0, f);
    } else {
      rows_pass<2>(p, panel, row0, f);
      if constexpr (kRows == 3) rows_pass<1>(p, panel, row0 + 2, f + 2 * kGemmPanel);
      if constexpr (kRows == 4) rows_pass<2>(p, panel, row0 + 2, f + 2 * kGemmPanel);
    }
  }
};

constexpr Q4GemmKernelTable kAvx2Q4Gemm = Q4GemmDriver<Avx2Micro>::table("avx2");

}  // namespace

const Q4GemmKernelTable* q4gemm_avx2_kernels() { return &kAvx2Q4Gemm; }

}  // namespace kernels
}  // namespace focal
