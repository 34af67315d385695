// A W x W transpose of floats held in W vectors of W lanes, for packing keys as K^T
// (attention_simd.hpp): in registers with the instruction set's shuffles where this
// translation unit has them (AVX-512, AVX, SSE, NEON), else through a stack copy
// (Helium, scalar). Only from per-ISA translation units, like simd/vec_xsimd.hpp: the
// preprocessor tests below see that unit's flags, and `if constexpr` on the width picks
// the code for the Vec<Arch> being compiled.
#pragma once

#include <cstddef>

#include "simd/vec_scalar.hpp"

#if defined(__SSE2__)
#include <immintrin.h>
#endif
#if defined(__ARM_NEON) || defined(__ARM_NEON__)
#include <arm_neon.h>
#endif

namespace focal {
namespace kernels {
namespace {

template <class Arch>
struct Transpose {
  FOCAL_VEC_TYPES(Arch)

  // Stores column c of the W x W matrix whose row i is rows[i] to dst + c * dst_stride.
  static void store_columns(vec* rows, float* dst, size_t dst_stride) {
#if defined(__AVX512F__)
    if constexpr (W == 16) return store_columns_16(rows, dst, dst_stride);
#endif
#if defined(__AVX__)
    if constexpr (W == 8) return store_columns_8(rows, dst, dst_stride);
#endif
#if defined(__SSE2__) || defined(__ARM_NEON) || defined(__ARM_NEON__)
    if constexpr (W == 4) return store_columns_4(rows, dst, dst_stride);
#endif
    store_columns_copy(rows, dst, dst_stride);
  }

  // Any width: the rows to the stack, then element by element.
  static void store_columns_copy(const vec* rows, float* dst, size_t dst_stride) {
    alignas(64) float lanes[W * W];
    for (size_t i = 0; i < W; ++i) V::store(lanes + i * W, rows[i]);
    for (size_t c = 0; c < W; ++c)
      for (size_t i = 0; i < W; ++i) dst[c * dst_stride + i] = lanes[i * W + c];
  }

#if defined(__AVX__)
  static __m256 unpack_lo(__m256 x, __m256 y) { return _mm256_unpacklo_ps(x, y); }
  static __m256 unpack_hi(__m256 x, __m256 y) { return _mm256_unpackhi_ps(x, y); }
  static __m256 low_pairs(__m256 x, __m256 y) { return _mm256_shuffle_ps(x, y, 0x44); }
  static __m256 high_pairs(__m256 x, __m256 y) { return _mm256_shuffle_ps(x, y, 0xEE); }
#endif
#if defined(__AVX512F__)
  static __m512 unpack_lo(__m512 x, __m512 y) { return _mm512_unpacklo_ps(x, y); }
  static __m512 unpack_hi(__m512 x, __m512 y) { return _mm512_unpackhi_ps(x, y); }
  static __m512 low_pairs(__m512 x, __m512 y) { return _mm512_shuffle_ps(x, y, 0x44); }
  static __m512 high_pairs(__m512 x, __m512 y) { return _mm512_shuffle_ps(x, y, 0xEE); }
#endif

  // Every 128-bit lane of the W rows transposed as 4 x 4 blocks: rows interleaved by 1,
  // then by 2 floats. quads[4q + k] holds, in lane L, column 4L + kQuadColumn[k] of
  // rows 4q .. 4q + 3.
  static constexpr size_t kQuadColumn[4] = {0, 2, 1, 3};
  template <class Register>
  static void transpose_quads(const vec* rows, Register* quads) {
    Register pairs[W];
    for (size_t i = 0; i < W; i += 2) {
      pairs[i] = unpack_lo(rows[i], rows[i + 1]);
      pairs[i + 1] = unpack_hi(rows[i], rows[i + 1]);
    }
    for (size_t i = 0; i < W; i += 4) {
      for (size_t k = 0; k < 2; ++k) {
        quads[i + k] = low_pairs(pairs[i + k], pairs[i + 2 + k]);
        quads[i + 2 + k] = high_pairs(pairs[i + k], pairs[i + 2 + k]);
      }
    }
  }

#if defined(__AVX512F__)
  // The 4 x 4 blocks, then 128-bit lanes exchanged twice: 64 shuffles for 256 floats.
  static void store_columns_16(const vec* rows, float* dst, size_t dst_stride) {
    __m512 b[16], a[16];
    transpose_quads(rows, b);
    // Gather the four row quads of each column quad: a[k] (k < 4) lanes 0, 2 of quads
    // 0 and 1, a[k + 8] lanes 1, 3; a[k + 4] and a[k + 12] the same of quads 2 and 3.
    for (size_t i = 0; i < 8; ++i) {
      const size_t q = (i / 4) * 8 + i % 4;
      a[i] = _mm512_shuffle_f32x4(b[q], b[q + 4], 0x88);
      a[i + 8] = _mm512_shuffle_f32x4(b[q], b[q + 4], 0xDD);
    }
    for (size_t i = 0; i < 4; ++i) {
      b[i] = _mm512_shuffle_f32x4(a[i], a[i + 4], 0x88);
      b[i + 4] = _mm512_shuffle_f32x4(a[i + 8], a[i + 12], 0x88);
      b[i + 8] = _mm512_shuffle_f32x4(a[i], a[i + 4], 0xDD);
      b[i + 12] = _mm512_shuffle_f32x4(a[i + 8], a[i + 12], 0xDD);
    }
    for (size_t i = 0; i < 16; ++i) {
      const size_t column = (i / 4) * 4 + kQuadColumn[i % 4];
      _mm512_storeu_ps(dst + column * dst_stride, b[i]);
    }
  }
#endif

#if defined(__AVX__)
  // The 4 x 4 blocks, then the two 128-bit lanes of rows 0..3 and 4..7 paired.
  static void store_columns_8(const vec* rows, float* dst, size_t dst_stride) {
    __m256 b[8];
    transpose_quads(rows, b);
    for (size_t i = 0; i < 4; ++i) {
      const size_t column = kQuadColumn[i];
      _mm256_storeu_ps(dst + column * dst_stride, _mm256_permute2f128_ps(b[i], b[i + 4], 0x20));
      _mm256_storeu_ps(dst + (column + 4) * dst_stride, _mm256_permute2f128_ps(b[i], b[i + 4], 0x31));
    }
  }
#endif

#if defined(__SSE2__)
  static void store_columns_4(const vec* rows, float* dst, size_t dst_stride) {
    __m128 r0 = rows[0], r1 = rows[1], r2 = rows[2], r3 = rows[3];
    _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
    _mm_storeu_ps(dst, r0);
    _mm_storeu_ps(dst + dst_stride, r1);
    _mm_storeu_ps(dst + 2 * dst_stride, r2);
    _mm_storeu_ps(dst + 3 * dst_stride, r3);
  }
#elif defined(__ARM_NEON) || defined(__ARM_NEON__)
  // vtrn swaps odd and even lanes of row pairs; the 64-bit halves then combine.
  static void store_columns_4(const vec* rows, float* dst, size_t dst_stride) {
    const float32x4x2_t t01 = vtrnq_f32(rows[0], rows[1]);
    const float32x4x2_t t23 = vtrnq_f32(rows[2], rows[3]);
    vst1q_f32(dst, vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0])));
    vst1q_f32(dst + dst_stride, vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1])));
    vst1q_f32(dst + 2 * dst_stride, vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0])));
    vst1q_f32(dst + 3 * dst_stride, vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1])));
  }
#endif
};

}  // namespace
}  // namespace kernels
}  // namespace focal
