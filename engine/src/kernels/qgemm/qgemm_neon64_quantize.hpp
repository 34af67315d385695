// Row quantization of the aarch64 int8 GEMM variants (neon64, neon64_dotprod,
// neon64_i8mm), bit for bit quantize_row_reference(): FMUL is the same IEEE product,
// FCVTNS (vcvtnq_s32_f32) rounds to nearest with ties to even as rint does in the
// default mode, and the clamp to [-127, 127] is the reference's. armv7 NEON has no
// round-to-nearest conversion (and flushes subnormals): qgemm_neon.cpp keeps the plain
// loops.
#pragma once

#include <arm_neon.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

constexpr size_t kQuantizeStep = 8;  // floats per step: two q registers, 8 bytes out

// The last k % 8 floats of a row, zero-padded to a full step (zeros quantize to q = 0,
// the padding the row needs anyway).
struct QuantizeTail {
  float x[kQuantizeStep] = {};
  QuantizeTail(const float* from, size_t count) { std::memcpy(x, from, count * sizeof(float)); }
};

// max |x| of 8 floats folded into m. FMAX propagates NaN, so a NaN anywhere gives NaN.
inline float32x4_t fold_abs_max(float32x4_t m, const float* x) {
  m = vmaxq_f32(m, vabsq_f32(vld1q_f32(x)));
  return vmaxq_f32(m, vabsq_f32(vld1q_f32(x + 4)));
}

// max |x| over the row, NaN if any element is NaN, infinity if any is infinite.
inline float row_abs_max(const float* x, size_t k) {
  float32x4_t m = vdupq_n_f32(0.0f);
  size_t i = 0;
  for (; i + kQuantizeStep <= k; i += kQuantizeStep) m = fold_abs_max(m, x + i);
  if (i < k) m = fold_abs_max(m, QuantizeTail(x + i, k - i).x);
  return vmaxvq_f32(m);  // FMAXV propagates NaN too
}

// 8 floats times inv, rounded to nearest even, clamped to [-127, 127], as 8 int8 bytes.
inline void quantize_step(const float* x, float32x4_t inv, uint8_t* q) {
  const int32x4_t lo = vdupq_n_s32(-127), hi = vdupq_n_s32(127);
  const int32x4_t q0 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x), inv));
  const int32x4_t q1 = vcvtnq_s32_f32(vmulq_f32(vld1q_f32(x + 4), inv));
  const int16x8_t q01 = vcombine_s16(vmovn_s32(vmaxq_s32(vminq_s32(q0, hi), lo)),
                                     vmovn_s32(vmaxq_s32(vminq_s32(q1, hi), lo)));
  vst1_u8(q, vreinterpret_u8_s8(vmovn_s16(q01)));
}

// One row into q (a_stride bytes, offset 0); returns its scale.
inline float quantize_row_neon64(const float* x, size_t k, size_t a_stride, uint8_t* q) {
  const float amax = row_abs_max(x, k);
  if (!(std::isfinite(amax) && amax > 0.0f)) {
    std::memset(q, 0, a_stride);
    return std::isfinite(amax) ? 0.0f : __builtin_nanf("");
  }
  const float32x4_t inv = vdupq_n_f32(127.0f / amax);
  size_t i = 0;
  for (; i + kQuantizeStep <= k; i += kQuantizeStep) quantize_step(x + i, inv, q + i);
  if (i < k) {
    quantize_step(QuantizeTail(x + i, k - i).x, inv, q + i);
    i += kQuantizeStep;
  }
  if (i < a_stride) std::memset(q + i, 0, a_stride - i);
  return amax / 127.0f;
}

// The quantize_rows() of the aarch64 Micro structs (qgemm_driver.hpp), inherited.
struct Neon64RowQuantization {
  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    for (size_t r = row_begin; r < row_end; ++r) {
      p.a_scales[r] = quantize_row_neon64(p.gemm.x + r * p.gemm.x_stride, p.gemm.k, p.a_stride,
                                          p.a + r * p.a_stride);
    }
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
