// The int8 GEMM variant of aarch64 cores with FEAT_DotProd (Cortex-A55/A76 and later;
// built with +dotprod, chosen when HWCAP_ASIMDDP is set): SDOT (vdotq_s32) adds four
// int8 products into each int32 lane. One vector of weights is 16 consecutive bytes of a
// panel's group, outputs j and j+1 times 8 k; the row's 8 bytes of the group are
// duplicated into both halves, so the lanes hold the half-group sums [j k0-3, j k4-7,
// j+1 k0-3, j+1 k4-7], added pairwise (vpaddq_s32) at the end.
#include <arm_neon.h>

#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_neon64_quantize.hpp"
#include "qgemm/qgemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

struct DotprodMicro : TileByPasses<DotprodMicro>, Neon64RowQuantization {
  static constexpr size_t kTileRows = 4;
  static constexpr uint8_t kOffset = 0;
  // 8 outputs per pass (4 weight vectors): 4 rows x 4 accumulators, 16 q registers.
  static constexpr size_t kPassVectors = 4;
  static constexpr size_t kPassOutputs = 2 * kPassVectors;

  // The tile's rows against 8 consecutive outputs of a panel: w is their first group
  // (64 bytes, then the next group 256 bytes on); c the first of the 8 columns.
  static void pass(const TileRows<kTileRows>& x, size_t rows, const int8_t* w, size_t groups,
                   int32_t* c) {
    int32x4_t acc[kTileRows][kPassVectors];  // acc[r][v]: row r, outputs 2v and 2v + 1
#pragma GCC unroll 4
    for (size_t r = 0; r < kTileRows; ++r) {
      for (size_t v = 0; v < kPassVectors; ++v) acc[r][v] = vdupq_n_s32(0);
    }
    for (size_t g = 0; g < groups; ++g) {
      const int8_t* wg = w + g * kQGemmPanelGroupBytes;
      int8x16_t b[kPassVectors];
#pragma GCC unroll 4
      for (size_t v = 0; v < kPassVectors; ++v) b[v] = vld1q_s8(wg + 16 * v);
#pragma GCC unroll 4
      for (size_t r = 0; r < kTileRows; ++r) {
        const int8x8_t xr = vld1_s8(x.row[r] + g * kQGemmGroup);
        const int8x16_t xx = vcombine_s8(xr, xr);
#pragma GCC unroll 4
        for (size_t v = 0; v < kPassVectors; ++v) acc[r][v] = vdotq_s32(acc[r][v], xx, b[v]);
      }
    }
#pragma GCC unroll 4
    for (size_t r = 0; r < kTileRows; ++r) {
      if (r >= rows) break;
      vst1q_s32(c + r * kGemmPanel, vpaddq_s32(acc[r][0], acc[r][1]));
      vst1q_s32(c + r * kGemmPanel + 4, vpaddq_s32(acc[r][2], acc[r][3]));
    }
  }
};

constexpr QGemmKernelTable kDotprodQGemm = QGemmDriver<DotprodMicro>::table("neon64_dotprod");

}  // namespace

const QGemmKernelTable* qgemm_neon64_dotprod_kernels() { return &kDotprodQGemm; }

}  // namespace kernels
}  // namespace focal
