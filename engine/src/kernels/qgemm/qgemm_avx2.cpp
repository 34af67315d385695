// The AVX2 int8 GEMM variant: bytes sign-extended to int16, then vpmaddwd (two int16
// products summed into each int32 lane), which is exact for every int8 pair (|sum| <=
// 2 * 128 * 128); vpmaddubsw is not used: its int16 sums of two u8 x s8 products
// saturate (255 * 127 * 2 > 32767). Activations are signed (offset 0).
//
// 16 bytes of a panel group, sign-extended, are two outputs x 8 k (output 2i in the low
// 128-bit lane, 2i + 1 in the high one); a row's 8 bytes, sign-extended, fill both lanes.
// Each int32 lane then holds a quarter of an output's group; the quarters are added
// once per block of 8 outputs (two horizontal adds and a permute).
#include <immintrin.h>

#include <cstring>

#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_row_pairs.hpp"

namespace focal {
namespace kernels {
namespace {

// A tile of 4 rows runs as 2 pairs (qgemm_row_pairs.hpp); each pair x block of 8 outputs
// keeps 8 accumulators, 4 widened weight vectors and 2 rows in the 16 ymm registers.
constexpr size_t kAvx2TileRows = 4;

struct Avx2Ops {
  static constexpr size_t kBlockOutputs = 8;

  // A block's group: w_i holds outputs 2i and 2i + 1 (16 bytes each, widened).
  struct Weights {
    __m256i w0, w1, w2, w3;
  };
  // One row's accumulators for a block: s_i holds the quarters of outputs 2i and 2i + 1.
  struct Sums {
    __m256i s0, s1, s2, s3;
  };

  static __m256i widen16(const int8_t* w) {
    return _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(w)));
  }
  static Weights load_weights(const int8_t* w) {
    return {widen16(w), widen16(w + 16), widen16(w + 32), widen16(w + 48)};
  }
  // A row's group g as 8 int16, in both 128-bit lanes.
  static __m256i load_row(const uint8_t* row, size_t g) {
    int64_t bytes = 0;
    std::memcpy(&bytes, row + g * kQGemmGroup, sizeof bytes);
    return _mm256_broadcastsi128_si256(_mm_cvtepi8_epi16(_mm_cvtsi64_si128(bytes)));
  }
  static void accumulate(Sums& acc, __m256i x, const Weights& w) {
    acc.s0 = _mm256_add_epi32(acc.s0, _mm256_madd_epi16(x, w.w0));
    acc.s1 = _mm256_add_epi32(acc.s1, _mm256_madd_epi16(x, w.w1));
    acc.s2 = _mm256_add_epi32(acc.s2, _mm256_madd_epi16(x, w.w2));
    acc.s3 = _mm256_add_epi32(acc.s3, _mm256_madd_epi16(x, w.w3));
  }
  // The two horizontal adds leave, per 128-bit lane, the even outputs (low lane) and the
  // odd ones (high lane); the permute interleaves them.
  static void store(const Sums& acc, int32_t* c) {
    const __m256i quarters = _mm256_hadd_epi32(_mm256_hadd_epi32(acc.s0, acc.s1),
                                               _mm256_hadd_epi32(acc.s2, acc.s3));
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(c),
                        _mm256_permutevar8x32_epi32(quarters, order));
  }
};

struct Avx2Micro {
  static constexpr size_t kTileRows = kAvx2TileRows;
  static constexpr uint8_t kOffset = 0;

  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    row_pair_tile<Avx2Ops>(a, a_stride, rows, panel, groups, c);
  }

  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<kOffset>(p, row_begin, row_end);
  }
};

constexpr QGemmKernelTable kAvx2QGemm = QGemmDriver<Avx2Micro>::table("avx2");

}  // namespace

const QGemmKernelTable* qgemm_avx2_kernels() { return &kAvx2QGemm; }

}  // namespace kernels
}  // namespace focal
