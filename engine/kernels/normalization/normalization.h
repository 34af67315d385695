// Normalization over the last axis of [rows, width] f32 data.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

struct LayerNormParams {
  size_t rows;
  size_t width;
  float epsilon;
};

// y = (x - mean) / sqrt(var + epsilon) * gamma + beta, with the biased variance (as
// PyTorch's nn.LayerNorm). y may alias x.
void layernorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma,
                             const float* beta, float* y);

}  // namespace kernels
}  // namespace focal
