// The int8 GEMM variant of aarch64 cores with FEAT_DotProd (Cortex-A55/A76 and later;
// built with +dotprod, chosen when HWCAP_ASIMDDP is set): SDOT (vdotq_s32) adds four
// int8 products into each int32 lane. One vector of weights is 16 consecutive bytes of a
// panel's group, outputs j and j+1 times 8 k; the row's 8 bytes of the group are
// duplicated into both halves, so the lanes hold the half-group sums [j k0-3, j k4-7,
// j+1 k0-3, j+1 k4-7], added pairwise (vpaddq_s32) at the end.
#include <arm_neon.h>

#include <cstdint>
#include <cstring>

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

  // A row's 8 bytes of a group in both halves of a q register, as a 64-bit load and
  // replicate: GCC 12 emits LDR d + DUP .2d (keeping its register-offset address, which
  // LD1R lacks), where vcombine of the half with itself gave LDR d + INS v.d[1]. LLVM's
  // Cortex-A55 model costs that INS as a Q-form NEON instruction (both pipes SDOT needs)
  // and DUP as half of one: bench/arm_mca, int8 sdot, bound 20 -> 18 pipe cycles per
  // group of 16 SDOTs (not measured on a board).
  static int8x16_t duplicated_group(const int8_t* bytes) {
    uint64_t half = 0;
    std::memcpy(&half, bytes, sizeof half);  // (rows need not be 8-byte aligned)
    return vreinterpretq_s8_u64(vdupq_n_u64(half));
  }

  // What one group's 16 SDOTs read: its 4 weight vectors and the 4 rows' bytes.
  struct Operands {
    int8x16_t b[kPassVectors];
    int8x16_t x[kTileRows];
  };

  // The operands of the group at w (weights) and x[r] (row bytes).
  static Operands load(const int8_t* const* x, const int8_t* w) {
    Operands o;
#pragma GCC unroll 4
    for (size_t v = 0; v < kPassVectors; ++v) o.b[v] = vld1q_s8(w + 16 * v);
#pragma GCC unroll 4
    for (size_t r = 0; r < kTileRows; ++r) o.x[r] = duplicated_group(x[r]);
    return o;
  }

  static void dot(const Operands& o, int32x4_t (&acc)[kTileRows][kPassVectors]) {
#pragma GCC unroll 4
    for (size_t r = 0; r < kTileRows; ++r) {
#pragma GCC unroll 4
      for (size_t v = 0; v < kPassVectors; ++v) acc[r][v] = vdotq_s32(acc[r][v], o.x[r], o.b[v]);
    }
  }

  // The tile's rows against 8 consecutive outputs of a panel: w is their first group
  // (64 bytes, then the next group 256 bytes on); c the first of the 8 columns.
  // Software-pipelined: the loads of group g + 1 are in the same step as the SDOTs of
  // group g, so an in-order core (Cortex-A55) issues them beside the SDOTs instead of
  // waiting out each load's latency before the SDOTs that need it (bench/arm_mca, A55
  // model: 34 -> 30 cycles per group); the last group runs after the loop. The sums are
  // added in the same order as without it.
  static void pass(const TileRows<kTileRows>& x, size_t rows, const int8_t* w, size_t groups,
                   int32_t* c) {
    int32x4_t acc[kTileRows][kPassVectors];  // acc[r][v]: row r, outputs 2v and 2v + 1
#pragma GCC unroll 4
    for (size_t r = 0; r < kTileRows; ++r) {
      for (size_t v = 0; v < kPassVectors; ++v) acc[r][v] = vdupq_n_s32(0);
    }
    if (groups > 0) {
      const int8_t* xg[kTileRows];  // each row's bytes of the next group to load
      for (size_t r = 0; r < kTileRows; ++r) xg[r] = x.row[r];
      Operands now = load(xg, w);
      for (size_t g = 1; g < groups; ++g) {
        w += kQGemmPanelGroupBytes;
        for (size_t r = 0; r < kTileRows; ++r) xg[r] += kQGemmGroup;
        const Operands ahead = load(xg, w);
        dot(now, acc);
        now = ahead;
      }
      dot(now, acc);
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
