#include <cmath>

#include "normalization/normalization.h"

namespace focal {
namespace kernels {

void layernorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma,
                             const float* beta, float* y) {
  for (size_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.width;
    float* yr = y + r * p.width;
    // Two passes (mean, then squared deviations) rather than E[x^2] - E[x]^2, which
    // cancels catastrophically when |mean| >> std.
    float mean = 0.0f;
    for (size_t i = 0; i < p.width; ++i) mean += xr[i];
    mean /= static_cast<float>(p.width);
    float variance = 0.0f;
    for (size_t i = 0; i < p.width; ++i) variance += (xr[i] - mean) * (xr[i] - mean);
    variance /= static_cast<float>(p.width);
    const float inv_std = 1.0f / std::sqrt(variance + p.epsilon);
    for (size_t i = 0; i < p.width; ++i) yr[i] = (xr[i] - mean) * inv_std * gamma[i] + beta[i];
  }
}

}  // namespace kernels
}  // namespace focal
