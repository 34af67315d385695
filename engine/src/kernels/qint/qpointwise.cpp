// Pointwise kernels on int8 activations (qint_kernels.h): the residual add of two int8
// tensors with their own scales, and a 256-entry table for any function of one int8
// value (GELU, tanh, ...: with per-tensor quantization the output is a function of the
// input's 256 possible values, so the converter evaluates the function once per value in
// double precision and the engine looks it up, exactly).
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define FOCAL_QADD_MVE 1
#endif

namespace focal {
namespace kernels {

// Each input, its zero point removed, times its multiplier (its scale over the output's,
// in units of 2^-shift), the two summed and rounded once (to nearest, ties upward). TFLite's
// int8 ADD (and CMSIS-NN's arm_elementwise_add_s8) requantize each input and then the sum,
// three 64-bit multiplies and roundings per element; this is two 32-bit multiplies and a
// shift, about a fifth of the instructions on a Cortex-M4, and it rounds once.
// The record is read into locals once: y's int8_t stores may alias it, so read through
// `p` every field was reloaded per element (a Cortex-M4 took 28 instructions per element).
// The zero points fold into one constant: (a - z_a) M_a + (b - z_b) M_b + 2^(s-1) =
// a M_a + b M_b + (2^(s-1) - z_a M_a - z_b M_b), the same int32 sum (|z M| <= 2^28).
void qadd_s8(const QAddParams& p, const int8_t* a, const int8_t* b, size_t count, int8_t* y) {
  const int32_t a_multiplier = p.a_multiplier, b_multiplier = p.b_multiplier, shift = p.shift;
  const int32_t offset = (int32_t(1) << (shift - 1)) - p.a_zero_point * a_multiplier - p.b_zero_point * b_multiplier;
  const int32_t zero_point = p.output_zero_point, lo = p.output_min, hi = p.output_max;
  size_t i = 0;
#if defined(FOCAL_QADD_MVE)
  // Helium: four elements per step in int32 lanes, the same integers (VSHL by -shift is
  // the arithmetic right shift; the low byte of each clamped lane is stored).
  for (; i + 4 <= count; i += 4) {
    int32x4_t sum = vmlaq_n_s32(vmulq_n_s32(vldrbq_s32(a + i), a_multiplier), vldrbq_s32(b + i), b_multiplier);
    sum = vaddq_n_s32(vshlq_r_s32(vaddq_n_s32(sum, offset), -shift), zero_point);
    vstrbq_s32(y + i, vminq_s32(vmaxq_s32(sum, vdupq_n_s32(lo)), vdupq_n_s32(hi)));
  }
#endif
  for (; i < count; ++i) {
    const int32_t sum = int32_t(a[i]) * a_multiplier + int32_t(b[i]) * b_multiplier + offset;
    y[i] = int8_t(qint::clamp((sum >> shift) + zero_point, lo, hi));  // arithmetic shift: floor
  }
}

void qlookup_s8(const int8_t* table, const int8_t* x, size_t count, int8_t* y) {
  for (size_t i = 0; i < count; ++i) y[i] = table[int32_t(x[i]) + 128];
}

}  // namespace kernels
}  // namespace focal
