// The aarch64 dotprod int4 variant (FEAT_DotProd): the row walk of q4gemm_neon_rows.hpp
// with sdot adding each quad. The nibbles u = q + 8 (0..15) are valid signed bytes, so
// sdot multiplies them by the row's q directly and adds each output's 4 k into its lane.
#include <arm_neon.h>

#include "q4gemm/q4gemm_driver.hpp"
#include "q4gemm/q4gemm_neon_rows.hpp"

namespace focal {
namespace kernels {
namespace {

struct DotprodQuad {
  static void accumulate(int32x4_t* acc, const uint8_t* quad, int32_t q) {
    const int8x16_t x = vreinterpretq_s8_s32(vdupq_n_s32(q));
    const uint8x16_t mask = vdupq_n_u8(0x0F);
    for (size_t v = 0; v < 4; ++v) {
      const uint8x16_t w = vld1q_u8(quad + 16 * v);
      acc[v] = vdotq_s32(acc[v], vreinterpretq_s8_u8(vandq_u8(w, mask)), x);
      acc[4 + v] = vdotq_s32(acc[4 + v], vreinterpretq_s8_u8(vshrq_n_u8(w, 4)), x);
    }
  }
};

constexpr Q4GemmKernelTable kNeon64DotprodQ4Gemm =
    Q4GemmDriver<RowByRowMicro<neon_row_pass<DotprodQuad>>>::table("neon64_dotprod");

}  // namespace

const Q4GemmKernelTable* q4gemm_neon64_dotprod_kernels() { return &kNeon64DotprodQ4Gemm; }

}  // namespace kernels
}  // namespace focal
