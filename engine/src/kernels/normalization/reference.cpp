#include <cmath>

#include "normalization/normalization_kernels.h"

namespace focal {
namespace kernels {

void layernorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma,
                             const float* beta, float* y) {
  const float n = static_cast<float>(p.width);
  for (size_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.width;
    float* yr = y + r * p.width;
    // Two passes (mean, then deviations) rather than E[x^2] - E[x]^2, which cancels
    // catastrophically when |mean| >> std; the sum of the deviations corrects the
    // rounding error of the first mean (see normalization.h).
    float mean = 0.0f;
    for (size_t i = 0; i < p.width; ++i) mean += xr[i];
    mean /= n;
    float sum = 0.0f, sum_squares = 0.0f;
    for (size_t i = 0; i < p.width; ++i) {
      const float d = xr[i] - mean;
      sum += d;
      sum_squares += d * d;
    }
    const float shift = sum / n;
    const float variance = std::fmax(sum_squares / n - shift * shift, 0.0f);
    const float inv_std = 1.0f / std::sqrt(variance + p.epsilon);
    for (size_t i = 0; i < p.width; ++i) {
      yr[i] = ((xr[i] - mean) - shift) * inv_std * gamma[i] + beta[i];
    }
  }
}

void rmsnorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma, float* y) {
  for (size_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.width;
    float* yr = y + r * p.width;
    float sum_squares = 0.0f;
    for (size_t i = 0; i < p.width; ++i) sum_squares += xr[i] * xr[i];
    const float inv_rms = 1.0f / std::sqrt(sum_squares / static_cast<float>(p.width) + p.epsilon);
    for (size_t i = 0; i < p.width; ++i) yr[i] = xr[i] * inv_rms * gamma[i];
  }
}

void l2_normalize_f32_reference(const LayerNormParams& p, const float* x, float* y) {
  for (size_t r = 0; r < p.rows; ++r) {
    const float* xr = x + r * p.width;
    float* yr = y + r * p.width;
    float sum_squares = 0.0f;
    for (size_t i = 0; i < p.width; ++i) sum_squares += xr[i] * xr[i];
    const float inv_norm = 1.0f / l2_divisor(std::sqrt(sum_squares), p.epsilon);
    for (size_t i = 0; i < p.width; ++i) yr[i] = xr[i] * inv_norm;
  }
}

}  // namespace kernels
}  // namespace focal
