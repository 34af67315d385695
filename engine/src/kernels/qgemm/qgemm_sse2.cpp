// The SSE2 int8 GEMM variant (every x86-64 CPU): bytes sign-extended to int16 (SSE2 has
// no pmovsxbw: each byte is paired with itself and shifted right arithmetically by 8),
// then pmaddwd, exact for every int8 pair (|sum of two products| <= 2 * 128 * 128).
// Activations are signed (offset 0).
//
// An output's 8 weights of a group, sign-extended, fill one xmm, as does a row's group;
// each int32 lane holds a quarter of the output's group sum, and the quarters of 4
// outputs are added once per block (a 4 x 4 transpose of adds).
#include <emmintrin.h>

#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_row_pairs.hpp"

namespace focal {
namespace kernels {
namespace {

// A tile of 4 rows runs as 2 pairs (qgemm_row_pairs.hpp); each pair x block of 4 outputs
// keeps 8 accumulators, 4 widened weight vectors and 2 rows in the 16 xmm registers.
constexpr size_t kSse2TileRows = 4;

// The low 8 bytes of v as int16 (high 8 bytes: widen_high).
inline __m128i widen_low(__m128i v) { return _mm_srai_epi16(_mm_unpacklo_epi8(v, v), 8); }
inline __m128i widen_high(__m128i v) { return _mm_srai_epi16(_mm_unpackhi_epi8(v, v), 8); }

struct Sse2Ops {
  static constexpr size_t kBlockOutputs = 4;

  // A block's group: w_i holds output i's 8 weights (widened).
  struct Weights {
    __m128i w0, w1, w2, w3;
  };
  // One row's accumulators for a block: s_i holds output i's quarters.
  struct Sums {
    __m128i s0, s1, s2, s3;
  };

  static Weights load_weights(const int8_t* w) {
    const __m128i w01 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w));
    const __m128i w23 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(w + 16));
    return {widen_low(w01), widen_high(w01), widen_low(w23), widen_high(w23)};
  }
  static __m128i load_row(const uint8_t* row, size_t g) {
    return widen_low(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(row + g * kQGemmGroup)));
  }
  static void accumulate(Sums& acc, __m128i x, const Weights& w) {
    acc.s0 = _mm_add_epi32(acc.s0, _mm_madd_epi16(x, w.w0));
    acc.s1 = _mm_add_epi32(acc.s1, _mm_madd_epi16(x, w.w1));
    acc.s2 = _mm_add_epi32(acc.s2, _mm_madd_epi16(x, w.w2));
    acc.s3 = _mm_add_epi32(acc.s3, _mm_madd_epi16(x, w.w3));
  }
  // Lanes interleaved in 32-bit then 64-bit steps, so each add folds two quarters of
  // every output at once.
  static void store(const Sums& acc, int32_t* c) {
    const __m128i s01 = _mm_add_epi32(_mm_unpacklo_epi32(acc.s0, acc.s1),
                                      _mm_unpackhi_epi32(acc.s0, acc.s1));
    const __m128i s23 = _mm_add_epi32(_mm_unpacklo_epi32(acc.s2, acc.s3),
                                      _mm_unpackhi_epi32(acc.s2, acc.s3));
    const __m128i sums = _mm_add_epi32(_mm_unpacklo_epi64(s01, s23), _mm_unpackhi_epi64(s01, s23));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(c), sums);
  }
};

struct Sse2Micro {
  static constexpr size_t kTileRows = kSse2TileRows;
  static constexpr uint8_t kOffset = 0;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    row_pair_tile<Sse2Ops>(a, a_stride, rows, panel, groups, c);
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
