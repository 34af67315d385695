// The SSE2 int8 GEMM variant (every x86-64 CPU): bytes sign-extended to int16 (SSE2 has
// no pmovsxbw: each byte is paired with itself and shifted right arithmetically by 8),
// then pmaddwd, exact for every int8 pair (|sum of two products| <= 2 * 128 * 128).
// Activations are signed (offset 0).
//
// An output's 8 weights of a group, sign-extended, fill one xmm, as does a row's group;
// each int32 lane holds a quarter of the output's group sum, and the quarters of 4
// outputs are added once per block (a 4 x 4 transpose of adds).
#include <emmintrin.h>

#include <cstring>

#include "qgemm/qgemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// A tile of 4 rows runs as 2 pairs; each pair x block of 4 outputs keeps 8 accumulators,
// 4 widened weight vectors and 2 rows in the 16 xmm registers.
constexpr size_t kSse2TileRows = 4;
constexpr size_t kBlockOutputs = 4;

// The low 8 bytes of v as int16 (high 8 bytes: widen_high).
inline __m128i widen_low(__m128i v) { return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8); }
inline __m128i widen_high(__m128i v) { return _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8); }

inline __m128i widen_row_group(const uint8_t* row, size_t g) {
  return widen_low(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + g * kQGemmGroup)));
}

// One row's accumulators for a block of 4 outputs: s_i holds output i's quarters.
struct BlockSums {
  __m128i s0, s1, s2, s3;
};

inline void accumulate(BlockSums& acc, __m128i x, __m128i w0, __m128i w1, __m128i w2, __m128i w3) {
  acc.s0 = _mm_add_epi32(acc.s0, _mm_madd_epi16(x, w0));
  acc.s1 = _mm_add_epi32(acc.s1, _mm_madd_epi16(x, w1));
  acc.s2 = _mm_add_epi32(acc.s2, _mm_madd_epi16(x, w2));
  acc.s3 = _mm_add_epi32(acc.s3, _mm_madd_epi16(x, w3));
}

// c[0..3] = the block's 4 sums: lanes interleaved in 32-bit then 64-bit steps, so each
// add folds two quarters of every output at once.
inline void store_block(const BlockSums& acc, int32_t* c) {
  const __m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(acc.s0, acc.s1), _mm_unpackhi_epi32(acc.s0, acc.s1));
  const __m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(acc.s2, acc.s3), _mm_unpackhi_epi32(acc.s2, acc.s3));
  const __m128i sums = _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(c), sums);
}

// Sums of kRows (1 or 2) rows against the 4 outputs whose weights start at `block` in
// the panel, over every group; c: the first row's 4 sums (the second's 32 further on).
template <size_t kRows>
void block_sums(const uint8_t* a, size_t a_stride, const int8_t* block, size_t groups, int32_t* c) {
  BlockSums r0{}, r1{};
  for (size_t g = 0; g < groups; ++g) {
    const __m128i* w = reinterpret_cast<const __m128i*>(block + g * kQGemmPanelGroupBytes);
    const __m128i w01 = _mm_loadu_si128(w), w23 = _mm_loadu_si128(w + 1);
    const __m128i w0 = widen_low(w01), w1 = widen_high(w01);
    const __m128i w2 = widen_low(w23), w3 = widen_high(w23);
    accumulate(r0, widen_row_group(a, g), w0, w1, w2, w3);
    if constexpr (kRows > 1) accumulate(r1, widen_row_group(a + a_stride, g), w0, w1, w2, w3);
  }
  store_block(r0, c);
  if constexpr (kRows > 1) store_block(r1, c + kGemmPanel);
}

struct Sse2Micro {
  static constexpr size_t kTileRows = kSse2TileRows;
  static constexpr uint8_t kOffset = 0;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    for (size_t r = 0; r < rows; r += 2) {
      const uint8_t* pair = a + r * a_stride;
      for (size_t j = 0; j < kGemmPanel; j += kBlockOutputs) {
        const int8_t* block = panel + j * kQGemmGroup;
        int32_t* out = c + r * kGemmPanel + j;
        if (rows - r >= 2) {
          block_sums<2>(pair, a_stride, block, groups, out);
        } else {
          block_sums<1>(pair, a_stride, block, groups, out);
        }
      }
    }
  }

  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<kOffset>(p, row_begin, row_end);
  }
};

constexpr QGemmKernelTable kSse2QGemm = QGemmDriver<Sse2Micro>::table("sse2");

}  // namespace

const QGemmKernelTable* qgemm_sse2_kernels() { return &kSse2QGemm; }

}  // namespace kernels
}  // namespace focal
