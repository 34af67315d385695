// Normalization over the last axis in double: LayerNorm and RmsNorm.
#include <cmath>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {

// y = (x - mean) / sqrt(var + eps) * gamma + beta, var the biased (population) variance.
Status layernorm_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const Operand& y = c.outputs[0];
  const size_t width = x.dim(-1), rows = x.count() / width;
  const double epsilon = c.op.options_as_LayerNormOptions()->epsilon();
  for (size_t r = 0; r < rows; ++r) {
    const double* xr = x.values + r * width;
    double mean = 0.0, variance = 0.0;
    for (size_t i = 0; i < width; ++i) mean += xr[i];
    mean /= static_cast<double>(width);
    for (size_t i = 0; i < width; ++i) variance += (xr[i] - mean) * (xr[i] - mean);
    variance /= static_cast<double>(width);
    const double inv_std = 1.0 / std::sqrt(variance + epsilon);
    for (size_t i = 0; i < width; ++i) {
      y.values[r * width + i] = (xr[i] - mean) * inv_std * c.in(1).at(i) + c.in(2).at(i);
    }
  }
  return Status();
}

// y = x / sqrt(mean(x^2) + eps) * gamma.
Status rmsnorm_op(const OpContext& c) {
  const Operand& x = c.in(0);
  const Operand& y = c.outputs[0];
  const size_t width = x.dim(-1), rows = x.count() / width;
  const double epsilon = c.op.options_as_RmsNormOptions()->epsilon();
  for (size_t r = 0; r < rows; ++r) {
    const double* xr = x.values + r * width;
    double squares = 0.0;
    for (size_t i = 0; i < width; ++i) squares += xr[i] * xr[i];
    const double inv_rms = 1.0 / std::sqrt(squares / static_cast<double>(width) + epsilon);
    for (size_t i = 0; i < width; ++i) y.values[r * width + i] = xr[i] * inv_rms * c.in(1).at(i);
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
