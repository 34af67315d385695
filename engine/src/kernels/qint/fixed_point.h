// Fixed-point arithmetic of static int8 quantization: how an int32 accumulator becomes an
// int8 or int16 activation without floating point, so cores without an FPU run it and
// every core gets the same bits.
//
// The scheme is TensorFlow Lite's 8-bit quantization specification
// (tensorflow.org/lite/performance/quantization_spec): real = scale * (q - zero_point),
// int8 activations per tensor with a zero point in [-128, 127], int8 weights per output
// channel, symmetric (zero point 0, values in [-127, 127]), int32 biases with scale
// input_scale * weight_scale and zero point 0. A real multiplier M = input_scale *
// weight_scale / output_scale is stored as a Q31 `multiplier` in [2^30, 2^31) and a
// power-of-two `shift` with M = multiplier * 2^(shift - 31).
//
// requantize() has the semantics of CMSIS-NN's arm_nn_requantize (Include/
// arm_nnsupportfunctions.h, the variant without CMSIS_NN_USE_SINGLE_ROUNDING): a positive
// shift multiplies first, then the doubling high multiply (the 64-bit product plus 2^30,
// shifted right by 31: to nearest, ties upward, as arm_nn_doubling_high_mult_no_sat), then
// a negative shift divides by a power of two rounding to nearest, ties away from zero
// (arm_nn_divide_by_power_of_two). Written here from that description.
#pragma once

#include <cmath>
#include <cstdint>

namespace focal {
namespace kernels {
namespace qint {

// The per-element helpers below are inlined into every loop that calls them: at -Os gcc
// 12 calls them out of line, and on the Cortex-M4 the calls were a fifth of an int8
// classifier's instructions (a call, a return and the argument moves around ten
// instructions of arithmetic).
#if defined(__GNUC__)
#define FOCAL_QINT_INLINE inline __attribute__((always_inline))
#else
#define FOCAL_QINT_INLINE inline
#endif

// Largest left shift a multiplier may carry, and largest right shift: the converter keeps
// shifts in [kMinShift, kMaxShift] (multipliers smaller than 2^-31 round to zero).
constexpr int32_t kMaxShift = 30;
constexpr int32_t kMinShift = -31;

// (a * b + 2^30) >> 31 in 64-bit: the high word of the doubled product, ties upward.
// INT32_MIN * INT32_MIN would overflow: multipliers are never negative, so it cannot occur.
FOCAL_QINT_INLINE int32_t doubling_high_multiply(int32_t a, int32_t b) {
  const int64_t product = int64_t(a) * int64_t(b) + (int64_t(1) << 30);
  return int32_t(product >> 31);  // arithmetic shift (C++20 defines it; gcc always did)
}

// x / 2^exponent rounded to nearest, ties away from zero; exponent in [0, 31].
FOCAL_QINT_INLINE int32_t rounding_divide_by_power_of_two(int32_t x, int32_t exponent) {
  const int32_t mask = int32_t((int64_t(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// A multiplier and shift taken apart once, for the loops that requantize many values by
// the same channel's: the shift's left and right parts and the right shift's rounding mask.
struct Requantizer {
  int32_t multiplier;
  int32_t left;       // the shift's positive part
  int32_t right;      // its negative part's magnitude, in [0, 31]
  uint32_t mask;      // 2^right - 1
  int32_t half_mask;  // mask >> 1: the rounding threshold of a value >= 0
};

FOCAL_QINT_INLINE Requantizer make_requantizer(int32_t multiplier, int32_t shift) {
  const int32_t left = shift > 0 ? shift : 0;
  const int32_t right = shift > 0 ? 0 : -shift;
  const uint32_t mask = (uint32_t(1) << right) - 1;
  return {multiplier, left, right, mask, int32_t(mask >> 1)};
}

// acc * multiplier * 2^(shift - 31), rounded as CMSIS-NN does: the doubling high multiply,
// then rounding_divide_by_power_of_two's steps with the prepared mask. A left shift that
// would overflow int32 wraps there too (as in CMSIS-NN); the converter's shifts and the
// accumulator ranges it derives from calibration keep acc << shift within int32.
FOCAL_QINT_INLINE int32_t requantize(int32_t acc, const Requantizer& r) {
  const int32_t high = doubling_high_multiply(int32_t(uint32_t(acc) << r.left), r.multiplier);
  const int32_t remainder = int32_t(uint32_t(high) & r.mask);
  const int32_t threshold = r.half_mask + int32_t(uint32_t(high) >> 31);
  return (high >> r.right) + (remainder > threshold ? 1 : 0);
}

FOCAL_QINT_INLINE int32_t requantize(int32_t acc, int32_t multiplier, int32_t shift) {
  return requantize(acc, make_requantizer(multiplier, shift));
}

FOCAL_QINT_INLINE int32_t clamp(int32_t v, int32_t lo, int32_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
FOCAL_QINT_INLINE int16_t saturate_int16(int32_t v) { return int16_t(clamp(v, INT16_MIN, INT16_MAX)); }

// A Q31 multiplier and shift.
struct FixedMultiplier {
  int32_t multiplier;  // in [2^30, 2^31), or 0 for a real multiplier of 0
  int32_t shift;       // in [kMinShift, kMaxShift]
};

// The fixed-point form of a real multiplier >= 0 (the converter's side; the engine only
// reads the result): real = m * 2^e with m in [0.5, 1), multiplier = round(m * 2^31),
// shift = e; a rounded m of 1 moves to the next exponent. Returns false for a negative,
// non-finite or too large multiplier (shift above kMaxShift); multipliers too small for
// kMinShift become 0.
inline bool quantize_multiplier(double real, FixedMultiplier* out) {
  if (!(real >= 0.0) || !std::isfinite(real)) return false;
  if (real == 0.0) return *out = FixedMultiplier{0, 0}, true;
  int exponent = 0;
  const double mantissa = std::frexp(real, &exponent);
  int64_t q31 = int64_t(std::llround(mantissa * double(int64_t(1) << 31)));
  if (q31 == (int64_t(1) << 31)) {
    q31 /= 2;
    ++exponent;
  }
  if (exponent > kMaxShift) return false;
  if (exponent < kMinShift) return *out = FixedMultiplier{0, 0}, true;
  *out = FixedMultiplier{int32_t(q31), exponent};
  return true;
}

}  // namespace qint
}  // namespace kernels
}  // namespace focal
