// The arithmetic of static int8 quantization on the converter's side (issue 36): from
// real weights and calibrated activation ranges to the integers and fixed-point records
// the engine's int8 ops read (schema Quantization, Requantization). The scheme is
// TensorFlow Lite's 8-bit quantization specification
// (tensorflow.org/lite/performance/quantization_spec): activations asymmetric per tensor
// (int8, a zero point that represents real 0 exactly), weights symmetric per output
// channel (int8 in [-127, 127], zero point 0), int32 biases in units of input scale x
// weight scale; real multipliers as Q31 multiplier and shift
// (engine/src/kernels/qint/fixed_point.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"
#include "focal_generated.h"

namespace focal {
namespace quantize {

// An int8 activation: real = scale * (q - zero_point).
struct ActivationParams {
  double scale = 1.0;
  int32_t zero_point = 0;
};

// The int8 quantization of a real range [lo, hi] widened to hold 0 (so that padding and
// zeros are exact): scale = (hi - lo) / 255, zero point -128 - lo / scale rounded and
// clamped to [-128, 127]; the scale is rounded to float (the file's type) first. An empty or degenerate range gets scale 1/128 around 0.
ActivationParams activation_params(double lo, double hi);

// A weight [rows, cols] quantized per row (the engine's one row quantizer,
// focal/internal/int8_row.h): q symmetric in [-127, 127], scales[r] = max |row| / 127. An
// all-zero row gets scale 1 (its q are 0), so that its bias still has a unit.
struct Int8Weight {
  std::vector<int8_t> q;
  std::vector<float> scales;
  size_t rows = 0, cols = 0;
};
Int8Weight quantize_weight(const std::vector<float>& values, size_t rows, size_t cols);
std::vector<uint8_t> weight_bytes(const Int8Weight& w);

// The requantization record of y = W x + b on int8 x with params `x` (schema
// Requantization): bias[j] = round(b[j] / (s_x s_w[j])) - zp_x sum_k q[j][k] (b may be
// empty: no bias), and, unless output_scale is 0 (f32 outputs: no multipliers),
// multiplier and shift of s_x s_w[j] / output_scale. Fails naming `what` when a bias or a
// multiplier does not fit (|bias| >= 2^30, multiplier >= 2^30).
Status requantization(const std::string& what, const Int8Weight& w, const std::vector<float>& b,
                      const ActivationParams& x, double output_scale, fb::RequantizationT* out);

// One real multiplier as (multiplier, shift); fails naming `what` when it is too large.
Status fixed_multiplier(const std::string& what, double real, int32_t* multiplier, int32_t* shift);

}  // namespace quantize
}  // namespace focal
