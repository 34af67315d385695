// The aarch64 dotprod int4 variant (FEAT_DotProd). A quad's 64 bytes are four q registers:
// their low nibbles are outputs 0..15 (4 per register, 4 k per int32 lane, as sdot
// multiplies and adds them) and their high nibbles outputs 16..31. The nibbles u = q + 8
// (0..15) are valid signed bytes, so sdot takes them and the row's q directly; the
// group's sums less 8 x the row's group sum are exact, then one fused multiply-add per
// group with the f16 scales (vfmaq_f32, the reference's fmaf). One row at a time.
#include <arm_neon.h>

#include <cstring>

#include "q4gemm/q4gemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// f[0..31] of one row over the whole panel.
void row_pass(const Q4GemmProblem& p, const uint8_t* panel, size_t row, float* f) {
  const size_t k = p.rows.gemm.k;
  const int8_t* a = reinterpret_cast<const int8_t*>(p.rows.a + row * p.rows.a_stride);
  const int32_t* sums = p.group_sums + row * p.groups;
  const uint8x16_t mask = vdupq_n_u8(0x0F);
  float32x4_t total[8];
  for (float32x4_t& t : total) t = vdupq_n_f32(0.0f);
  const uint8_t* group = panel;
  for (size_t g = 0; g < p.groups; ++g) {
    const size_t quads = q4_group_quads(k, p.group, g);
    const int8_t* x = a + g * p.group;
    int32x4_t acc[8];
    for (int32x4_t& s : acc) s = vdupq_n_s32(0);
    for (size_t c = 0; c < quads; ++c) {
      int32_t bytes = 0;
      std::memcpy(&bytes, x + c * kQ4QuadK, 4);
      const int8x16_t xb = vreinterpretq_s8_s32(vdupq_n_s32(bytes));
      const uint8_t* quad = group + c * kQ4QuadBytes;
      for (int v = 0; v < 4; ++v) {
        const uint8x16_t w = vld1q_u8(quad + 16 * v);
        acc[v] = vdotq_s32(acc[v], vreinterpretq_s8_u8(vandq_u8(w, mask)), xb);
        acc[4 + v] = vdotq_s32(acc[4 + v], vreinterpretq_s8_u8(vshrq_n_u8(w, 4)), xb);
      }
    }
    const int32x4_t offset = vdupq_n_s32(int32_t(kQ4Offset) * sums[g]);
    const uint16_t* scales = reinterpret_cast<const uint16_t*>(group + quads * kQ4QuadBytes);
    for (int v = 0; v < 8; ++v) {
      const float32x4_t scale = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(scales + 4 * v)));
      total[v] = vfmaq_f32(total[v], vcvtq_f32_s32(vsubq_s32(acc[v], offset)), scale);
    }
    group += q4_group_stride(p.group);
  }
  for (int v = 0; v < 8; ++v) vst1q_f32(f + 4 * v, total[v]);
}

struct Neon64DotprodMicro {
  template <size_t kRows>
  static void panel_rows(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
    for (size_t r = 0; r < kRows; ++r) row_pass(p, panel, row0 + r, f + r * kGemmPanel);
  }
};

constexpr Q4GemmKernelTable kNeon64DotprodQ4Gemm = Q4GemmDriver<Neon64DotprodMicro>::table("neon64_dotprod");

}  // namespace

const Q4GemmKernelTable* q4gemm_neon64_dotprod_kernels() { return &kNeon64DotprodQ4Gemm; }

}  // namespace kernels
}  // namespace focal
