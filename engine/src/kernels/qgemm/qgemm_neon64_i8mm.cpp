// The int8 GEMM variant of aarch64 cores with FEAT_I8MM (Neoverse V1/N2, Cortex-A510/
// A710 and later; built with +i8mm, chosen when HWCAP2_I8MM is set): SMMLA
// (vmmlaq_s32) multiplies a 2 x 8 int8 matrix by the transpose of another and adds the
// 2 x 2 int32 result, 32 products per instruction. A is rows r and r + 1 of a group (two
// 8-byte loads), B is 16 consecutive bytes of a panel's group (outputs j and j + 1 times
// 8 k): the lanes are [r j, r j+1, r+1 j, r+1 j+1], whole-group sums.
#include <arm_neon.h>

#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_neon64_quantize.hpp"
#include "qgemm/qgemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

struct I8mmMicro : TileByPasses<I8mmMicro>, Neon64RowQuantization {
  static constexpr size_t kTileRows = 8;
  static constexpr uint8_t kOffset = 0;
  static constexpr size_t kRowPairs = kTileRows / 2;
  // 8 outputs per pass (4 weight vectors): 4 row pairs x 4 accumulators, 16 q registers.
  static constexpr size_t kPassVectors = 4;
  static constexpr size_t kPassOutputs = 2 * kPassVectors;

  // Row 2 * pair + half of the accumulators acc[v] (outputs 2v, 2v + 1), in output order.
  static void store_row(const int32x4_t (&acc)[kPassVectors], bool high, int32_t* c) {
    for (size_t v = 0; v < kPassVectors; v += 2) {
      const int64x2_t lo = vreinterpretq_s64_s32(acc[v]), hi = vreinterpretq_s64_s32(acc[v + 1]);
      const int64x2_t row = high ? vzip2q_s64(lo, hi) : vzip1q_s64(lo, hi);
      vst1q_s32(c + 2 * v, vreinterpretq_s32_s64(row));
    }
  }

  // The tile's rows against 8 consecutive outputs of a panel: w is their first group
  // (64 bytes, then the next group 256 bytes on); c the first of the 8 columns.
  static void pass(const TileRows<kTileRows>& x, size_t rows, const int8_t* w, size_t groups,
                   int32_t* c) {
    int32x4_t acc[kRowPairs][kPassVectors];  // acc[p][v]: rows 2p, 2p + 1; outputs 2v, 2v + 1
#pragma GCC unroll 4
    for (size_t p = 0; p < kRowPairs; ++p) {
      for (size_t v = 0; v < kPassVectors; ++v) acc[p][v] = vdupq_n_s32(0);
    }
    for (size_t g = 0; g < groups; ++g) {
      const int8_t* wg = w + g * kQGemmPanelGroupBytes;
      int8x16_t b[kPassVectors];
#pragma GCC unroll 4
      for (size_t v = 0; v < kPassVectors; ++v) b[v] = vld1q_s8(wg + 16 * v);
#pragma GCC unroll 4
      for (size_t p = 0; p < kRowPairs; ++p) {
        const size_t at = g * kQGemmGroup;
        const int8x16_t pair = vcombine_s8(vld1_s8(x.row[2 * p] + at), vld1_s8(x.row[2 * p + 1] + at));
#pragma GCC unroll 4
        for (size_t v = 0; v < kPassVectors; ++v) acc[p][v] = vmmlaq_s32(acc[p][v], pair, b[v]);
      }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kTileRows; ++r) {
      if (r >= rows) break;
      store_row(acc[r / 2], r % 2 == 1, c + r * kGemmPanel);
    }
  }
};

constexpr QGemmKernelTable kI8mmQGemm = QGemmDriver<I8mmMicro>::table("neon64_i8mm");

}  // namespace

const QGemmKernelTable* qgemm_neon64_i8mm_kernels() { return &kI8mmQGemm; }

}  // namespace kernels
}  // namespace focal
