// Pointwise kernels on int8 activations (qint_kernels.h): the residual add of two int8
// tensors with their own scales, and a 256-entry table for any function of one int8
// value (GELU, tanh, ...: with per-tensor quantization the output is a function of the
// input's 256 possible values, so the converter evaluates the function once per value in
// double precision and the engine looks it up, exactly).
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {

// TFLite's int8 ADD (tensorflow/lite/kernels/internal/reference/integer_ops/add.h, with
// CMSIS-NN's arm_elementwise_add_s8 doing the same): each input, its zero point removed,
// is shifted left by `left_shift` and scaled by its multiplier (its scale over twice the
// larger input scale), the two are summed, and the sum is requantized to the output.
void qadd_s8(const QAddParams& p, const int8_t* a, const int8_t* b, size_t count, int8_t* y) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t shifted_a = (int32_t(a[i]) - p.a_zero_point) * (int32_t(1) << p.left_shift);
    const int32_t shifted_b = (int32_t(b[i]) - p.b_zero_point) * (int32_t(1) << p.left_shift);
    const int32_t sum = qint::requantize(shifted_a, p.a_multiplier, p.a_shift) +
                        qint::requantize(shifted_b, p.b_multiplier, p.b_shift);
    const int32_t q = qint::requantize(sum, p.output_multiplier, p.output_shift) + p.output_zero_point;
    y[i] = int8_t(qint::clamp(q, p.output_min, p.output_max));
  }
}

void qlookup_s8(const int8_t* table, const int8_t* x, size_t count, int8_t* y) {
  for (size_t i = 0; i < count; ++i) y[i] = table[int32_t(x[i]) + 128];
}

}  // namespace kernels
}  // namespace focal
