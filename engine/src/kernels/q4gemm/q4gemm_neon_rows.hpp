// How the ARM int4 panel kernels walk a row: per group, 8 int32x4 sums of the panel's 32
// outputs (a quad's 64 bytes are four q registers of 4 outputs x 4 k: low nibbles are
// outputs 4v..4v+3 of the first half of the panel, high nibbles the same of the second),
// then the group's offset and one vfmaq_f32 with the f16 scales (the reference's fmaf).
// The instructions that add a quad into the sums are the variant's (Quad::accumulate):
// sdot (q4gemm_neon64_dotprod.cpp), or the widening products below, which aarch64 without
// dotprod (q4gemm_neon64.cpp) and armv7 (q4gemm_neon.cpp) both have. One row at a time
// (8 sums and 8 totals: the 16 q registers of armv7).
//
// armv7 NEON flushes subnormals; no total here can be one: every product is an integer
// times an f16 scale, a multiple of 2^-24, and so is every rounded sum of them.
#pragma once

#include <arm_neon.h>

#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// 4 f16 scales as f32. aarch64 converts in one instruction; armv7 NEON's conversion is
// left out so that no flush-to-zero mode can touch a subnormal f16 scale.
inline float32x4_t load_scales(const uint8_t* halves) {
  uint16_t h[4];
  std::memcpy(h, halves, sizeof h);
#if defined(__aarch64__)
  return vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h)));
#else
  const float lanes[4] = {simd::half_to_float(h[0]), simd::half_to_float(h[1]), simd::half_to_float(h[2]),
                          simd::half_to_float(h[3])};
  return vld1q_f32(lanes);
#endif
}

// f[0..31] of one row over the whole panel.
template <class Quad>
void neon_row_pass(const Q4GemmProblem& p, const uint8_t* panel, size_t row, float* f) {
  const size_t k = p.rows.gemm.k;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.rows.a + row * p.rows.a_stride);
  const int32_t* sums = p.group_sums + row * p.groups;
  float32x4_t total[8];
  for (float32x4_t& t : total) t = vdupq_n_f32(0.0f);
  const uint8_t* group = panel;
  for (size_t g = 0; g < p.groups; ++g) {
    const size_t quads = q4_group_quads(k, p.group, g);
    const int8_t* x = a + g * p.group;
    int32x4_t acc[8];
    for (int32x4_t& s : acc) s = vdupq_n_s32(0);
    for (size_t c = 0; c < quads; ++c) {
      int32_t q = 0;  // the row's 4 q of this quad
      std::memcpy(&q, x + c * kQ4QuadK, 4);
      const uint8_t* quad = group + c * kQ4QuadBytes;
      __builtin_prefetch(quad + kQ4PrefetchBytes);
      Quad::accumulate(acc, quad, q);
    }
    const int32x4_t offset = vdupq_n_s32(int32_t(kQ4Offset) * sums[g]);
    const uint8_t* scales = group + quads * kQ4QuadBytes;
    for (size_t v = 0; v < 8; ++v) {
      total[v] = vfmaq_f32(total[v], vcvtq_f32_s32(vsubq_s32(acc[v], offset)), load_scales(scales + 8 * v));
    }
    group += q4_group_stride(p.group);
  }
  for (size_t v = 0; v < 8; ++v) vst1q_f32(f + 4 * v, total[v]);
}

// NEON without dotprod: vmull_s8 multiplies the nibbles u = q + 8 (0..15, valid signed
// bytes) by the row's 4 q (repeated) into int16, two rounds of vpadd_s16 add each output's
// 4 products (|sum| <= 4 x 15 x 128, no overflow) and vaddw_s16 adds them into its lane.
struct WideningQuad {
  // The int16 sums of 4 outputs: nibbles n (16 bytes, 4 outputs of 4 k) times x (4 q, twice).
  static int16x4_t dot4(int8x16_t n, int8x8_t x) {
    const int16x8_t first = vmull_s8(vget_low_s8(n), x);    // outputs 0, 1: 4 products each
    const int16x8_t second = vmull_s8(vget_high_s8(n), x);  // outputs 2, 3
    return vpadd_s16(vpadd_s16(vget_low_s16(first), vget_high_s16(first)),
                     vpadd_s16(vget_low_s16(second), vget_high_s16(second)));
  }

  static void accumulate(int32x4_t* acc, const uint8_t* quad, int32_t q) {
    const int8x8_t x = vreinterpret_s8_s32(vdup_n_s32(q));
    const uint8x16_t mask = vdupq_n_u8(0x0F);
    for (size_t v = 0; v < 4; ++v) {
      const uint8x16_t w = vld1q_u8(quad + 16 * v);
      acc[v] = vaddw_s16(acc[v], dot4(vreinterpretq_s8_u8(vandq_u8(w, mask)), x));
      acc[4 + v] = vaddw_s16(acc[4 + v], dot4(vreinterpretq_s8_u8(vshrq_n_u8(w, 4)), x));
    }
  }
};

using NeonWideningQ4Micro = RowByRowMicro<neon_row_pass<WideningQuad>>;

}  // namespace
}  // namespace kernels
}  // namespace focal
