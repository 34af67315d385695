// Integer tanh, sigmoid and exp on int16. tanh and sigmoid: input in Q3.12 (real = q / 4096, [-8, 8)), output in
// Q0.15 (real = q / 32768, tanh in [-32768, 32767], sigmoid in [0, 32767]). These are the
// gate formats of TensorFlow Lite's integer LSTM (its quantization spec: gate
// pre-activations int16 with scale 2^-12, gate outputs int16 with scale 2^-15).
//
// One table of tanh at 513 points, every 1/32 over [-8, 8], with linear interpolation
// between them (interpolation error of tanh at that step: h^2 / 8 * max|tanh''| =
// 7.5e-5, 2.5 Q15 steps; tests/test_qint.cpp holds it to 4). sigmoid(x) = (1 + tanh(x /
// 2)) / 2 reads the same table at half the step, so it costs no second table. The
// table is computed by the compiler (constexpr, IEEE double) and lives in flash: 1,026
// bytes.
//
// exp, for softmax: input x <= 0 in Q4.11 (a score less the row's largest, [-16, 0]),
// output in Q0.15 (exp(0) = 1 capped at 32767); a second table of 513 points, every 1/32
// over [-16, 0] (interpolation error at most h^2 / 8 = 1.2e-4, 4 Q15 steps, near x = 0),
// 1,026 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qint/fixed_point.h"  // FOCAL_QINT_INLINE

namespace focal {
namespace kernels {
namespace qint {

constexpr size_t kTableSegments = 512;  // tanh over [-8, 8), exp over [-16, 0]: 1/32 each

namespace detail {

// exp(y) for y in [-16, 0], in double: y / 32 by its Taylor series, squared five times
// (relative error near 1e-15, far below the table's Q15 rounding).
constexpr double exp_nonpositive(double y) {
  const double r = y / 32.0;
  double term = 1.0, sum = 1.0;
  for (int n = 1; n < 24; ++n) {
    term *= r / n;
    sum += term;
  }
  for (int i = 0; i < 5; ++i) sum *= sum;
  return sum;
}

constexpr double tanh_double(double x) {
  const double magnitude = x < 0 ? -x : x;
  const double e = exp_nonpositive(-2.0 * magnitude);
  const double t = (1.0 - e) / (1.0 + e);
  return x < 0 ? -t : t;
}

struct Q15Table {
  int16_t q15[kTableSegments + 1];
};

// round(32768 v), ties away from zero, clamped to int16 (std::lround is not constexpr).
constexpr int16_t to_q15(double v) {
  const double magnitude = v < 0 ? -32768.0 * v : 32768.0 * v;
  int32_t whole = int32_t(magnitude);  // |v| <= 1: at most 32768
  if (magnitude - double(whole) >= 0.5) ++whole;
  const int32_t rounded = v < 0 ? -whole : whole;
  return int16_t(rounded > 32767 ? 32767 : (rounded < -32768 ? -32768 : rounded));
}

// tanh(-8 + i / 32) in Q15.
constexpr Q15Table make_tanh_table() {
  Q15Table table{};
  for (size_t i = 0; i <= kTableSegments; ++i) table.q15[i] = to_q15(tanh_double(-8.0 + double(i) / 32.0));
  return table;
}

// exp(-16 + i / 32) in Q15.
constexpr Q15Table make_exp_table() {
  Q15Table table{};
  for (size_t i = 0; i <= kTableSegments; ++i) table.q15[i] = to_q15(exp_nonpositive(-16.0 + double(i) / 32.0));
  return table;
}

// A table at a position with `frac_bits` fractional bits: position = index * 2^frac_bits
// + fraction, index < kTableSegments. Rounds half up (arithmetic shift of a biased sum).
FOCAL_QINT_INLINE int16_t interpolate(const Q15Table& table, uint32_t position, uint32_t frac_bits) {
  const uint32_t index = position >> frac_bits;
  const int32_t fraction = int32_t(position & ((1u << frac_bits) - 1));
  const int32_t lo = table.q15[index];
  const int32_t hi = table.q15[index + 1];
  return int16_t(lo + (((hi - lo) * fraction + (1 << (frac_bits - 1))) >> frac_bits));
}

}  // namespace detail

// In flash on a Cortex-M (const objects with constant initialisation).
inline constexpr detail::Q15Table kTanhTable = detail::make_tanh_table();
inline constexpr detail::Q15Table kExpTable = detail::make_exp_table();

FOCAL_QINT_INLINE int16_t tanh_table_at(uint32_t position, uint32_t frac_bits) {
  return detail::interpolate(kTanhTable, position, frac_bits);
}

// tanh: x + 32768 is the position in units of 1/4096 from -8; a segment is 128 of them.
FOCAL_QINT_INLINE int16_t tanh_s16(int16_t x_q3_12) {
  return tanh_table_at(uint32_t(int32_t(x_q3_12) + 32768), 7);
}

// sigmoid: tanh(x / 2) at position (x / 2 + 32768) / 128 = (x + 65536) / 256, so the
// halving loses no bit; then (1 + t) / 2 in Q15, rounded, capped at 32767.
FOCAL_QINT_INLINE int16_t sigmoid_s16(int16_t x_q3_12) {
  const int32_t t = tanh_table_at(uint32_t(int32_t(x_q3_12) + 65536), 8);
  const int32_t s = (t + 32768 + 1) >> 1;
  return int16_t(s > 32767 ? 32767 : s);
}

// exp: x + 32768 (x clamped to [-32768, 0]) is the position in units of 1/2048 from -16;
// a segment is 64 of them. exp(0) is the table's last point, 32767.
FOCAL_QINT_INLINE int16_t exp_s16(int32_t x_q4_11) {
  if (x_q4_11 >= 0) return kExpTable.q15[kTableSegments];
  const int32_t x = x_q4_11 < -32768 ? -32768 : x_q4_11;
  return detail::interpolate(kExpTable, uint32_t(x + 32768), 6);
}

}  // namespace qint
}  // namespace kernels
}  // namespace focal
