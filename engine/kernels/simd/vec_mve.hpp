// The Vec interface on Arm Helium (M-profile Vector Extension, Cortex-M55 and later):
// 4 floats per 128-bit Q register through the ACLE intrinsics of <arm_mve.h>. xsimd 8.1
// has no MVE batch type, so this is the third implementation of the interface, beside
// vec_scalar.hpp (the twin every kernel is checked against) and vec_xsimd.hpp.
//
// What MVE has and lacks, and what that means here:
//  - 8 Q registers (NEON has 16): the GEMM tile is chosen smaller (gemm_mve.cpp);
//  - tail predication (VCTP + predicated loads and stores): row tails touch nothing past
//    p + n, without a stack copy;
//  - no vector divide and no across-lanes float add: div works lane by lane on the FPU
//    (correctly rounded, like the scalar twin), reduce_add adds the four lanes;
//  - the accurate e^x, erf, tanh, sin and cos are newlib's, lane by lane: they run once
//    per activation or position, where accuracy matters more than the last cycle, and
//    they are then the scalar twin's functions exactly. The softmax's exp2 is vectorized.
#pragma once

#include <arm_mve.h>

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "simd/vec_scalar.hpp"

#if !defined(__ARM_FEATURE_MVE) || (__ARM_FEATURE_MVE & 2) == 0
#error "vec_mve.hpp needs MVE with floating point (-mcpu=cortex-m55)"
#endif

namespace focal {
namespace simd {

struct MveArch {
  static constexpr const char* name() { return "mve"; }
};

template <>
struct Vec<MveArch> {
  using type = float32x4_t;
  static constexpr size_t width = 4;

  static type zero() { return vdupq_n_f32(0.0f); }
  static type splat(float x) { return vdupq_n_f32(x); }
  static type load(const float* p) { return vld1q_f32(p); }
  static void store(float* p, type v) { vst1q_f32(p, v); }
  // a * b + c with one rounding (VFMA).
  static type fma(type a, type b, type c) { return vfmaq_f32(c, a, b); }
  // The scalar twin's a > b ? a : b for ordered lanes; VMAXNM prefers the number to a NaN.
  static type max(type a, type b) { return vmaxnmq_f32(a, b); }
  // Lanes added pairwise, (v0 + v2) + (v1 + v3), as the NEON and SSE kernels do.
  static float reduce_add(type v) {
    return (vgetq_lane_f32(v, 0) + vgetq_lane_f32(v, 2)) + (vgetq_lane_f32(v, 1) + vgetq_lane_f32(v, 3));
  }
  static float reduce_max(type v) { return vmaxnmvq_f32(vgetq_lane_f32(v, 0), v); }

  // Same algorithm and constants as exp2_scalar, lane-wise: below -126 (or NaN) 0,
  // above 128 +inf, else 2^f by a polynomial times 2^n put into the exponent bits.
  static type exp2(type x) {
    const mve_pred16_t underflow = vcmpgtq_n_f32(x, -126.0f) ^ 0xFFFFu;  // not (x > -126)
    x = vminnmq_f32(x, vdupq_n_f32(128.0f));
    x = vmaxnmq_f32(x, vdupq_n_f32(-126.0f));
    const type n = vrndnq_f32(x);
    const type f = vsubq_f32(x, n);
    type p = vdupq_n_f32(1.535336188319500e-4f);
    p = vfmaq_f32(vdupq_n_f32(1.339887440266574e-3f), p, f);
    p = vfmaq_f32(vdupq_n_f32(9.618437357674640e-3f), p, f);
    p = vfmaq_f32(vdupq_n_f32(5.550332471162809e-2f), p, f);
    p = vfmaq_f32(vdupq_n_f32(2.402264791363012e-1f), p, f);
    p = vfmaq_f32(vdupq_n_f32(6.931472028550421e-1f), p, f);
    p = vfmaq_f32(vdupq_n_f32(1.0f), p, f);
    const int32x4_t e = vcvtq_s32_f32(n);        // exact: n is integral, in [-126, 128]
    const int32x4_t e1 = vshrq_n_s32(e, 1);      // floor(e / 2)
    const int32x4_t e2 = vsubq_s32(e, e1);
    const type s1 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(e1, 127), 23));
    const type s2 = vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(e2, 127), 23));
    return vpselq_f32(vdupq_n_f32(0.0f), vmulq_f32(vmulq_f32(p, s1), s2), underflow);
  }

  static type tanh(type x) { return lanewise(x, [](float v) { return std::tanh(v); }); }
  static type exp(type x) { return lanewise(x, [](float v) { return std::exp(v); }); }
  static type erf(type x) { return lanewise(x, [](float v) { return std::erf(v); }); }
  static void sincos(type x, type* sin_x, type* cos_x) {
    *sin_x = lanewise(x, [](float v) { return std::sin(v); });
    *cos_x = lanewise(x, [](float v) { return std::cos(v); });
  }
  // a / b correctly rounded: one FPU divide per lane (MVE has no vector divide).
  static type div(type a, type b) {
    type q = a;
    q = vsetq_lane_f32(vgetq_lane_f32(a, 0) / vgetq_lane_f32(b, 0), q, 0);
    q = vsetq_lane_f32(vgetq_lane_f32(a, 1) / vgetq_lane_f32(b, 1), q, 1);
    q = vsetq_lane_f32(vgetq_lane_f32(a, 2) / vgetq_lane_f32(b, 2), q, 2);
    q = vsetq_lane_f32(vgetq_lane_f32(a, 3) / vgetq_lane_f32(b, 3), q, 3);
    return q;
  }

  // Row tails: the first n < 4 floats of p in the low lanes and `pad` in the others,
  // and the low n lanes of v to p; predicated, so nothing past p + n is touched.
  static type load_partial(const float* p, size_t n, float pad) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n));
    return vpselq_f32(vldrwq_z_f32(p, lanes), vdupq_n_f32(pad), lanes);
  }
  static void store_partial(float* p, size_t n, type v) {
    vstrwq_p_f32(p, v, vctp32q(static_cast<uint32_t>(n)));
  }

  // Lanes swapped in pairs: (v1, v0, v3, v2); for interleaved rotary pairs.
  static type swap_pairs(type v) { return vrev64q_f32(v); }

  // 4 IEEE halves from p, exactly, lane by lane as the scalar twin converts them. Not
  // MVE's VCVTB.F32.F16: qemu 7.2 does not implement it (an UNDEFINSTR fault), so it
  // could not be tested here; f16 weights are rare on M-class parts (int8 is the path).
  static type load_half(const uint16_t* p) {
    type x = vdupq_n_f32(0.0f);
    x = vsetq_lane_f32(half_to_float(p[0]), x, 0);
    x = vsetq_lane_f32(half_to_float(p[1]), x, 1);
    x = vsetq_lane_f32(half_to_float(p[2]), x, 2);
    x = vsetq_lane_f32(half_to_float(p[3]), x, 3);
    return x;
  }
  // 4 bfloat16 from p: each is the top half of a float's bits.
  static type load_bf16(const uint16_t* p) {
    return vreinterpretq_f32_u32(vshlq_n_u32(vldrhq_u32(p), 16));
  }
  // 4 int8 from p, sign-extended by the load itself, as floats (exact).
  static type load_i8(const int8_t* p) { return vcvtq_f32_s32(vldrbq_s32(p)); }

 private:
  template <class F>
  static type lanewise(type x, F f) {
    x = vsetq_lane_f32(f(vgetq_lane_f32(x, 0)), x, 0);
    x = vsetq_lane_f32(f(vgetq_lane_f32(x, 1)), x, 1);
    x = vsetq_lane_f32(f(vgetq_lane_f32(x, 2)), x, 2);
    x = vsetq_lane_f32(f(vgetq_lane_f32(x, 3)), x, 3);
    return x;
  }
};

}  // namespace simd
}  // namespace focal
