// The integer LSTM cell (formats in qint_kernels.h): sigmoid and tanh from the int16
// table (activation_s16.h), products rounded to nearest by power-of-two shifts, the
// hidden state requantized to int8 like any output.
#include "qint/activation_s16.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

// The cell state (real = c 2^-frac_bits) as a tanh input in Q3.12, saturated at +-8
// (where tanh is 1 to within 2^-23).
int16_t cell_to_q3_12(int32_t c, int32_t frac_bits) {
  if (frac_bits >= 12) return int16_t(qint::rounding_divide_by_power_of_two(c, frac_bits - 12));
  return qint::saturate_int16(c * (int32_t(1) << (12 - frac_bits)));
}

}  // namespace

void qlstm_cell(const QLstmCellParams& p, const int16_t* gates, int16_t* cell, int8_t* hidden) {
  const size_t h = p.hidden;
  // i g is Q0.30; the cell keeps frac_bits of it.
  const int32_t ig_shift = 30 - p.cell_frac_bits;
  for (size_t j = 0; j < h; ++j) {
    const int32_t i = qint::sigmoid_s16(gates[j]);
    const int32_t f = qint::sigmoid_s16(gates[h + j]);
    const int32_t g = qint::tanh_s16(gates[2 * h + j]);
    const int32_t o = qint::sigmoid_s16(gates[3 * h + j]);
    const int32_t kept = qint::rounding_divide_by_power_of_two(f * int32_t(cell[j]), 15);
    const int32_t added = qint::rounding_divide_by_power_of_two(i * g, ig_shift);
    const int32_t c = qint::saturate_int16(kept + added);
    cell[j] = int16_t(c);
    const int32_t out_q0_30 = o * int32_t(qint::tanh_s16(cell_to_q3_12(c, p.cell_frac_bits)));
    const int32_t q = qint::requantize(out_q0_30, p.hidden_multiplier, p.hidden_shift);
    hidden[j] = int8_t(qint::clamp(q + p.hidden_zero_point, -128, 127));
  }
}

}  // namespace kernels
}  // namespace focal
