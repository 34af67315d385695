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
//  - e^x (sigmoid, SiLU) and tanh (LSTM/GRU gates, GELU-tanh) are vectorized here (on
//    the M55 example classifier the lane-by-lane newlib calls were a quarter of all
//    instructions), as is the softmax's exp2: measured within 1.1 and 2.5 ulp by
//    tests/test_vec_math.cpp (newlib's tanhf: 1.9); erf, sin and cos stay newlib's,
//    lane by lane (the scalar twin's functions);
//  - MVE arithmetic flushes subnormal results to zero (observed under qemu, as AArch32
//    NEON always does): e^x below 2^-126 is 0, not a subnormal.
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
  // acc with x's NaN lanes copied in: a sticky NaN probe (VMAXNM drops NaN).
  static type keep_nan(type acc, type x) { return vpselq_f32(x, acc, vcmpneq_f32(x, x)); }
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
    return vpselq_f32(vdupq_n_f32(0.0f), vmulq_f32(vmulq_f32(p, power_of_two(e1)), power_of_two(e2)), underflow);
  }
  // The x86/NEON kernels' cheaper form for x <= 64 (simd/vec_xsimd.hpp); here exp2,
  // which meets its contract.
  static type exp2_bounded(type x) { return exp2(x); }

  // e^x: 2^n (1 + expm1_reduced), n = round(x / ln 2). Above 88.75 +inf, below 2^-126
  // (x < -87.3) 0 as subnormals flush; the clamp at -104 only keeps n in range. NaN stays NaN.
  static type exp(type x) {
    const type clamped = vmaxnmq_f32(vminnmq_f32(x, vdupq_n_f32(88.75f)), vdupq_n_f32(-104.0f));
    int32x4_t n;
    const type p = expm1_reduced(clamped, &n);
    // 2^n in two factors: n reaches -150 and 128, beyond one exponent field.
    const int32x4_t n1 = vshrq_n_s32(n, 1), n2 = vsubq_s32(n, n1);
    const type e = vmulq_f32(vmulq_f32(vaddq_f32(p, vdupq_n_f32(1.0f)), power_of_two(n1)), power_of_two(n2));
    return vpselq_f32(x, e, vcmpneq_f32(x, x));
  }

  // tanh |x| = -expm1(-2|x|) / (2 + expm1(-2|x|)), the sign put back: no cancellation near
  // 0 (expm1 is accurate there), 1 for |x| >= 20. NaN stays NaN.
  static type tanh(type x) {
    const type y = vmaxnmq_f32(vmulq_n_f32(vabsq_f32(x), -2.0f), vdupq_n_f32(-40.0f));
    int32x4_t n;
    const type p = expm1_reduced(y, &n);  // n in [-58, 0]: 2^n in one factor
    const type scale = power_of_two(n);
    const type em = vfmaq_f32(vsubq_f32(scale, vdupq_n_f32(1.0f)), scale, p);  // e^y - 1
    const type t = div(vnegq_f32(em), vaddq_f32(em, vdupq_n_f32(2.0f)));
    const type signed_t = vpselq_f32(vnegq_f32(t), t, vcmpltq_n_f32(x, 0.0f));
    return vpselq_f32(x, signed_t, vcmpneq_f32(x, x));
  }

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
  // For x = n ln 2 + r with n = round(x / ln 2), |r| <= ln 2 / 2: e^r - 1, with n.
  // ln 2 in two parts (Cody-Waite: the high part has 9 significant bits, so n * ln2_hi
  // is exact for |n| < 2^15); e^r - 1 by its Taylor series to r^8 / 8!, whose remainder
  // is below 2^-31 of the result: accurate near 0, where tanh needs it.
  static type expm1_reduced(type x, int32x4_t* n_out) {
    const type n = vrndnq_f32(vmulq_n_f32(x, 1.44269504088896341f));
    type r = vfmsq_f32(x, n, vdupq_n_f32(0.693359375f));
    r = vfmsq_f32(r, n, vdupq_n_f32(-2.12194440054690583e-4f));
    type q = vdupq_n_f32(1.0f / 40320.0f);
    q = vfmaq_f32(vdupq_n_f32(1.0f / 5040.0f), q, r);
    q = vfmaq_f32(vdupq_n_f32(1.0f / 720.0f), q, r);
    q = vfmaq_f32(vdupq_n_f32(1.0f / 120.0f), q, r);
    q = vfmaq_f32(vdupq_n_f32(1.0f / 24.0f), q, r);
    q = vfmaq_f32(vdupq_n_f32(1.0f / 6.0f), q, r);
    q = vfmaq_f32(vdupq_n_f32(0.5f), q, r);
    q = vfmaq_f32(vdupq_n_f32(1.0f), q, r);
    *n_out = vcvtq_s32_f32(n);  // exact: n is integral and small
    return vmulq_f32(q, r);
  }

  // 2^n for n in [-126, 127], through the exponent field.
  static type power_of_two(int32x4_t n) { return vreinterpretq_f32_s32(vshlq_n_s32(vaddq_n_s32(n, 127), 23)); }

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
