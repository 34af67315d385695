// Vec<Arch> for the xsimd architectures: the handful of operations kernels use, with
// what xsimd 8.1 lacks (reductions other than add, a softmax-grade exp2, IEEE half
// loads) written here. Include only from per-ISA translation units.
#pragma once

#include <xsimd/xsimd.hpp>

#include "simd/vec_scalar.hpp"

#if defined(__SSE2__)
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
  // acc with x's NaN lanes copied in: a sticky NaN probe (max() drops NaN). Not x != x:
  // xsimd 8.1 compiles that to an ordered compare on AVX, false for NaN.
  static type keep_nan(type acc, type x) { return xsimd::select(xsimd::isnan(x), x, acc); }
  static float reduce_add(type v) { return xsimd::hadd(v); }
  // Largest lane, by in-register shuffles (xsimd 8.1 has no reduce_max; a round trip
  // through memory cost the attention kernel's softmax 10% of prefill time).
  static float reduce_max(type v) {
#if defined(__AVX512F__)
    if constexpr (width == 16) return _mm512_reduce_max_ps(v);
#endif
#if defined(__AVX__)
    if constexpr (width == 8) {
      const __m128 half = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
      const __m128 pair = _mm_max_ps(half, _mm_movehl_ps(half, half));
      return _mm_cvtss_f32(_mm_max_ss(pair, _mm_shuffle_ps(pair, pair, 1)));
    }
#endif
#if defined(__SSE2__)
    if constexpr (width == 4) {
      const __m128 pair = _mm_max_ps(v, _mm_movehl_ps(v, v));
      return _mm_cvtss_f32(_mm_max_ss(pair, _mm_shuffle_ps(pair, pair, 1)));
    }
#endif
#if defined(__aarch64__)
    if constexpr (width == 4) return vmaxvq_f32(v);
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
    if constexpr (width == 4) {
      const float32x2_t pair = vpmax_f32(vget_low_f32(v), vget_high_f32(v));
      return vget_lane_f32(vpmax_f32(pair, pair), 0);
    }
#endif
    alignas(64) float lanes[width];
    v.store_aligned(lanes);
    float m = lanes[0];
    for (size_t i = 1; i < width; ++i) m = lanes[i] > m ? lanes[i] : m;
    return m;
  }

  // 2^f for |f| <= 1/2: exp2_scalar's degree-6 polynomial.
  static type exp2_fraction(type f) {
    type p(1.535336188319500e-4f);
    p = xsimd::fma(p, f, type(1.339887440266574e-3f));
    p = xsimd::fma(p, f, type(9.618437357674640e-3f));
    p = xsimd::fma(p, f, type(5.550332471162809e-2f));
    p = xsimd::fma(p, f, type(2.402264791363012e-1f));
    p = xsimd::fma(p, f, type(6.931472028550421e-1f));
    return xsimd::fma(p, f, type(1.0f));
  }

  // 2^x for x <= 64 (softmax arguments: a score minus a bound it exceeds by little),
  // within 2 ulp down to -125.5, 0 at -127 and below (and for -inf). No overflow check and
  // no select: adding 1.5 * 2^23 + 127 rounds x to an integer n and leaves n + 127 in the
  // low mantissa bits, which a shift moves into the exponent of 2^n (the integer part
  // 1.5 * 2^23 shifts out), so the whole function is 11 vector instructions where exp2
  // takes 21; that share of every softmax's work is what it competes with the FMAs for.
  // NaN is unspecified (callers have handled it).
  static type exp2_bounded(type x) {
    constexpr float kRoundAndBias = 12582912.0f + 127.0f;  // 1.5 * 2^23 + the exponent bias
    x = xsimd::max(x, type(-127.0f));
    const type biased = x + type(kRoundAndBias);  // exact: x + 127 rounded to an integer
    const type n = biased - type(kRoundAndBias);
    const itype bits = xsimd::bitwise_cast<itype>(biased) << 23;  // (n + 127) << 23
    return exp2_fraction(x - n) * xsimd::bitwise_cast<type>(bits);
  }

  // Same algorithm and constants as exp2_scalar, lane-wise.
  static type exp2(type x) {
    const auto underflow = !(x > type(-126.0f));  // includes -inf and NaN
    x = xsimd::min(x, type(128.0f));
    x = xsimd::max(x, type(-126.0f));
    const type n = xsimd::nearbyint(x);
    const type p = exp2_fraction(x - n);
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

  // xsimd's accurate e^x, erf and sin/cos (Cephes/Boost.SIMD polynomials; sin/cos reduce
  // large arguments exactly, as fdlibm): activations and position encodings, where
  // accuracy matters more than the last cycle (the softmax exp is exp2 above).
  static type exp(type x) { return xsimd::exp(x); }
  static type erf(type x) { return xsimd::erf(x); }
  static void sincos(type x, type* sin_x, type* cos_x) {
    const auto sc = xsimd::sincos(x);
    *sin_x = sc.first;
    *cos_x = sc.second;
  }

  // a / b correctly rounded. xsimd 8.1's operator/ on NEON floats is a reciprocal
  // estimate refined by two Newton steps (up to ~2 ulp off), on AArch64 too; this uses
  // AArch64's divide instruction, and one VFP divide per lane on ARMv7 (no vector
  // divide there: slow, for once-per-row divisions only).
  static type div(type a, type b) {
#if defined(__aarch64__)
    if constexpr (width == 4) return type(vdivq_f32(a, b));
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
    if constexpr (width == 4) {
      alignas(16) float x[4], y[4];
      a.store_aligned(x);
      b.store_aligned(y);
      for (size_t i = 0; i < 4; ++i) x[i] /= y[i];
      return type::load_aligned(x);
    }
#endif
    return a / b;
  }

  // Row tails (xsimd 8.1 has no masked loads): the first n < width floats of p in the low
  // lanes and `pad` in the others (0 for sums, -inf for maxima), and the low n lanes of v
  // to p. Through a stack copy, so nothing past p + n is touched.
  static type load_partial(const float* p, size_t n, float pad) {
    alignas(64) float lanes[width];
    for (size_t i = 0; i < width; ++i) lanes[i] = i < n ? p[i] : pad;
    return type::load_aligned(lanes);
  }
  static void store_partial(float* p, size_t n, type v) {
    alignas(64) float lanes[width];
    v.store_aligned(lanes);
    for (size_t i = 0; i < n; ++i) p[i] = lanes[i];
  }

  // Lanes swapped in pairs: (v1, v0, v3, v2, ...); for interleaved (GPT-J) rotary pairs.
  static type swap_pairs(type v) {
#if defined(__AVX512F__)
    if constexpr (width == 16) return type(_mm512_permute_ps(v, 0xB1));
#endif
#if defined(__AVX__)
    if constexpr (width == 8) return type(_mm256_permute_ps(v, 0xB1));
#endif
#if defined(__SSE2__)
    if constexpr (width == 4) return type(_mm_shuffle_ps(v, v, 0xB1));
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
    if constexpr (width == 4) return type(vrev64q_f32(v));
#endif
    alignas(64) float lanes[width], swapped[width];
    v.store_aligned(lanes);
    for (size_t i = 0; i < width; ++i) swapped[i] = lanes[i ^ 1];
    return type::load_aligned(swapped);
  }

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

  // `width` bfloat16 from p, as floats (a bfloat16 is the top half of a float's bits).
  static type load_bf16(const uint16_t* p) {
#if defined(__AVX512F__)
    if constexpr (width == 16) {
      const __m512i wide = _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
      return type(_mm512_castsi512_ps(_mm512_slli_epi32(wide, 16)));
    }
#endif
#if defined(__AVX2__)
    if constexpr (width == 8) {
      const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
      return type(_mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
    }
#endif
#if defined(__SSE2__)
    if constexpr (width == 4) {
      const __m128i halves = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
      return type(_mm_castsi128_ps(_mm_unpacklo_epi16(_mm_setzero_si128(), halves)));
    }
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
    if constexpr (width == 4) return type(vreinterpretq_f32_u32(vshll_n_u16(vld1_u16(p), 16)));
#endif
    alignas(64) float lanes[width];
    for (size_t i = 0; i < width; ++i) lanes[i] = bf16_to_float(p[i]);
    return type::load_aligned(lanes);
  }

  // `width` int8 from p, as floats (exact).
  static type load_i8(const int8_t* p) {
#if defined(__AVX512F__)
    if constexpr (width == 16) {
      const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
      return type(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(bytes)));
    }
#endif
#if defined(__AVX2__)
    if constexpr (width == 8) {
      const __m128i bytes = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
      return type(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(bytes)));
    }
#endif
    if constexpr (width == 4) {  // 4 bytes as one word, widened by NEON or SSE2 shuffles
      int32_t word;
      std::memcpy(&word, p, 4);
#if defined(__SSE2__)
      __m128i v = _mm_cvtsi32_si128(word);
      v = _mm_unpacklo_epi8(v, v);   // each byte twice
      v = _mm_unpacklo_epi16(v, v);  // each byte four times: its own 32-bit lane
      return type(_mm_cvtepi32_ps(_mm_srai_epi32(v, 24)));
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
      const int16x8_t shorts = vmovl_s8(vreinterpret_s8_s32(vdup_n_s32(word)));
      return type(vcvtq_f32_s32(vmovl_s16(vget_low_s16(shorts))));
#endif
    }
    alignas(64) float lanes[width];
    for (size_t i = 0; i < width; ++i) lanes[i] = static_cast<float>(p[i]);
    return type::load_aligned(lanes);
  }

};

}  // namespace simd
}  // namespace focal
