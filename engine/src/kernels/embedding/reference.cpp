#include "embedding/embedding_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

void embedding_gather_reference(const EmbeddingParams& p) {
  for (size_t t = 0; t < p.count; ++t) {
    const size_t row = static_cast<size_t>(p.ids[t]) * p.dim;
    float* out = p.out + t * p.dim;
    if (p.type == EmbeddingType::kI8) {  // q * (row scale * scale): one rounding per element
      const float scale = p.row_scales[p.ids[t]] * p.scale;
      for (size_t i = 0; i < p.dim; ++i) out[i] = static_cast<float>(static_cast<const int8_t*>(p.table)[row + i]) * scale;
      continue;
    }
    for (size_t i = 0; i < p.dim; ++i) {
      const float value = p.type == EmbeddingType::kF16
                              ? simd::half_to_float(static_cast<const uint16_t*>(p.table)[row + i])
                              : static_cast<const float*>(p.table)[row + i];
      out[i] = value * p.scale;
    }
  }
}

}  // namespace kernels
}  // namespace focal
