// The int8 GEMM micro-kernel of ARM cores without dot-product instructions (aarch64
// without FEAT_DotProd, armv7 NEON): vmull_s8 gives the 8 products of a row's group and
// an output's group as int16 lanes, exact even for -128 * -128 = 16384, and vpadalq_s16
// adds them pairwise into int32 lanes. Two products are never added in int16 (2 * 16384
// does not fit), so the sums are exact for any K up to kQGemmMaxK.
//
// Shared by qgemm_neon64.cpp and qgemm_neon.cpp; each builds its own copy (unnamed
// namespace) with its own flags.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "qgemm/qgemm_kernels.h"
#include "qgemm/qgemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

// [a0 + a1, a2 + a3, b0 + b1, b2 + b3]
inline int32x4_t pairwise_sums(int32x4_t a, int32x4_t b) {
#if defined(__aarch64__)
  return vpaddq_s32(a, b);
#else
  return vcombine_s32(vpadd_s32(vget_low_s32(a), vget_high_s32(a)),
                      vpadd_s32(vget_low_s32(b), vget_high_s32(b)));
#endif
}

// The lane totals of four accumulators: [sum of a, sum of b, sum of c, sum of d].
inline int32x4_t lane_totals(const int32x4_t (&acc)[4]) {
  return pairwise_sums(pairwise_sums(acc[0], acc[1]), pairwise_sums(acc[2], acc[3]));
}

// kRows rows per tile call: acc holds kRows * 4 q registers (aarch64 has 32, armv7 16).
template <size_t kRows>
struct WideningMicro : TileByPasses<WideningMicro<kRows>> {
  static constexpr size_t kTileRows = kRows;
  static constexpr uint8_t kOffset = 0;
  static constexpr size_t kPassOutputs = 4;

  // The tile's rows against 4 consecutive outputs of a panel: w is their first group
  // (32 bytes, then the next group 256 bytes on); c the first of the 4 columns.
  static void pass(const TileRows<kRows>& x, size_t rows, const int8_t* w, size_t groups,
                   int32_t* c) {
    int32x4_t acc[kRows][kPassOutputs];  // acc[r][j]: 4 partial sums of row r, output j
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      for (size_t j = 0; j < kPassOutputs; ++j) acc[r][j] = vdupq_n_s32(0);
    }
    for (size_t g = 0; g < groups; ++g) {
      const int8_t* wg = w + g * kQGemmPanelGroupBytes;
      const int8x16_t w01 = vld1q_s8(wg), w23 = vld1q_s8(wg + 16);
      const int8x8_t wj[kPassOutputs] = {vget_low_s8(w01), vget_high_s8(w01),
                                         vget_low_s8(w23), vget_high_s8(w23)};
#pragma GCC unroll 8
      for (size_t r = 0; r < kRows; ++r) {
        const int8x8_t xr = vld1_s8(x.row[r] + g * kQGemmGroup);
#pragma GCC unroll 4
        for (size_t j = 0; j < kPassOutputs; ++j) {
          acc[r][j] = vpadalq_s16(acc[r][j], vmull_s8(xr, wj[j]));
        }
      }
    }
#pragma GCC unroll 8
    for (size_t r = 0; r < kRows; ++r) {
      if (r >= rows) break;
      vst1q_s32(c + r * kGemmPanel, lane_totals(acc[r]));
    }
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
