// Vec<Arch> for the xsimd architectures: the handful of operations kernels use, with
// what xsimd 8.1 lacks (reductions other than add, a softmax-grade exp2, IEEE half
// loads) written here. Include only from per-ISA translation units.
#pragma once

#include <xsimd/xsimd.hpp>

#include "simd/vec_scalar.hpp"

#if defined(__F16C__) || defined(__AVX512F__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
#include <arm_neon.h>
#endif

namespace focal {
namespace simd {

template <class Arch>
struct Vec {
  using type = xsimd::batch<float, Arch>;
  using itype = xsimd::batch<int32_t, Arch>;
  static constexpr size_t width = type::size;

  static type zero() { return type(0.0f); }
  static type splat(float x) { return type(x); }
  static type load(const float* p) { return type::load_unaligned(p); }
  static void store(float* p, type v) { v.store_unaligned(p); }
  static type fma(type a, type b, type c) { return xsimd::fma(a, b, c); }
  static type max(type a, type b) { return xsimd::max(a, b); }
  static float reduce_add(type v) { return xsimd::hadd(v); }
  static float reduce_max(type v) {
    alignas(64) float lanes[width];
    v.store_aligned(lanes);
    float m = lanes[0];
    for (size_t i = 1; i < width; ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
  }

  // Same algorithm and constants as exp2_scalar, lane-wise.
  static type exp2(type x) {
    const auto underflow = !(x > type(-126.0f));  // includes -inf and NaN
    x = xsimd::min(x, type(128.0f));
    x = xsimd::max(x, type(-126.0f));
    const type n = xsimd::nearbyint(x);
    const type f = x - n;
    type p(1.535336188319500e-4f);
    p = xsimd::fma(p, f, type(1.339887440266574e-3f));
    p = xsimd::fma(p, f, type(9.618437357674640e-3f));
    p = xsimd::fma(p, f, type(5.550332471162809e-2f));
    p = xsimd::fma(p, f, type(2.402264791363012e-1f));
    p = xsimd::fma(p, f, type(6.931472028550421e-1f));
    p = xsimd::fma(p, f, type(1.0f));
    const itype e = xsimd::nearbyint_as_int(n);
    const itype e1 = e >> 1;  // arithmetic shift: floor(e / 2)
    const itype e2 = e - e1;
    const type s1 = xsimd::bitwise_cast<type>((e1 + itype(127)) << 23);
    const type s2 = xsimd::bitwise_cast<type>((e2 + itype(127)) << 23);
    return xsimd::select(underflow, type(0.0f), p * s1 * s2);
  }

  // xsimd's tanh (Boost.SIMD: an odd polynomial below 0.625, 1 - 2 / (1 + e^2x) above,
  // saturating to +-1): within 2 ulp over -20..20, measured on AVX2, NEON64 and NEON.
  static type tanh(type x) { return xsimd::tanh(x); }

  // `width` IEEE halves from p, as floats.
  static type load_half(const uint16_t* p) {
#if defined(__AVX512F__)
    if constexpr (width == 16) {
      return type(_mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p))));
    }
#endif
#if defined(__F16C__)
    if constexpr (width == 8) {
      return type(_mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))));
    }
#endif
#if defined(__aarch64__)
    if constexpr (width == 4) return type(vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(p))));
#endif
    alignas(64) float lanes[width];
    for (size_t i = 0; i < width; ++i) lanes[i] = half_to_float(p[i]);
    return type::load_aligned(lanes);
  }

};

}  // namespace simd
}  // namespace focal
