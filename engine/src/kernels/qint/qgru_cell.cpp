// The integer GRU cell (formats in qint_kernels.h): PyTorch's GRU equations on the
// formats of TensorFlow Lite's integer LSTM, which its quantization specification gives
// for the LSTM's 16-bit internals (gate pre-activations int16 with scale 2^-12, sigmoid
// and tanh outputs int16 with scale 2^-15; activation_s16.h) and CMSIS-NN's
// arm_lstm_unidirectional_s8 keeps: products of Q0.15 values rounded to nearest by a
// power-of-two shift (fixed_point.h's rounding_divide_by_power_of_two, CMSIS-NN's
// arm_nn_divide_by_power_of_two), the int8 output requantized as any output
// (arm_nn_requantize). Neither TFLite nor CMSIS-NN has an integer GRU: what is this
// file's own is the carried state, int16 Q0.15 (|h| < 1 for a GRU started from zeros, a
// convex mix of tanh values), updated as h' = n + z (h - n), PyTorch's CPU kernel's form
// (kernels/recurrent/reference.cpp), with one rounding.
#include "qint/activation_s16.h"
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {

void qgru_cell(const QGruCellParams& p, const int16_t* gates, const int16_t* hidden_n, int16_t* state,
               int8_t* hidden) {
  const size_t h = p.hidden;
  for (size_t j = 0; j < h; ++j) {
    const int32_t r = qint::sigmoid_s16(gates[j]);      // Q0.15, [0, 32767]
    const int32_t z = qint::sigmoid_s16(gates[h + j]);  // Q0.15
    // r (W_hn h + b_hn): Q0.15 x Q3.12 >> 15 is Q3.12, no larger than |hidden_n|.
    const int32_t reset = qint::rounding_divide_by_power_of_two(r * int32_t(hidden_n[j]), 15);
    const int32_t n = qint::tanh_s16(qint::saturate_int16(int32_t(gates[2 * h + j]) + reset));  // Q0.15
    // z (h - n): |h - n| <= 65535 and z <= 32767, so the product stays below 2^31; the
    // result lies between n and h, inside int16 (saturated all the same).
    const int32_t mix = qint::rounding_divide_by_power_of_two(z * (int32_t(state[j]) - n), 15);
    const int32_t next = qint::saturate_int16(n + mix);
    state[j] = int16_t(next);
    // Q0.15 << 15 is Q0.30, the LSTM's o tanh(c) format: one hidden multiplier for both.
    const int32_t q = qint::requantize(next * (int32_t(1) << 15), p.hidden_multiplier, p.hidden_shift);
    hidden[j] = int8_t(qint::clamp(q + p.hidden_zero_point, -128, 127));
  }
}

}  // namespace kernels
}  // namespace focal
