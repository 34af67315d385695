#include "embedding/embedding_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// Stored element `index` of the table, as f32 (int8: q, before its scale).
float stored(EmbeddingType type, const void* table, size_t index) {
  switch (type) {
    case EmbeddingType::kF16:
      return simd::half_to_float(static_cast<const uint16_t*>(table)[index]);
    case EmbeddingType::kBF16:
      return simd::bf16_to_float(static_cast<const uint16_t*>(table)[index]);
    case EmbeddingType::kI8:
      return static_cast<float>(static_cast<const int8_t*>(table)[index]);
    default:
      return static_cast<const float*>(table)[index];
  }
}

// Where table[id, i] is stored, written out from include/focal/gemm.h's layouts: panels
// of 32 outputs; the panel layout steps 32 elements per k, the int8-dot one keeps 8
// adjacent k per output and steps 256 bytes per group of 8.
size_t stored_index(const EmbeddingParams& p, size_t id, size_t i) {
  const size_t panel = id / 32, lane = id % 32;
  switch (p.layout) {
    case EmbeddingLayout::kDensePanels:
      return (panel * p.dim + i) * 32 + lane;
    case EmbeddingLayout::kInt8DotPanels:
      return ((panel * ((p.dim + 7) / 8) + i / 8) * 32 + lane) * 8 + i % 8;
    default:
      return id * p.dim + i;
  }
}

}  // namespace

void embedding_gather_reference(const EmbeddingParams& p) {
  for (size_t t = 0; t < p.count; ++t) {
    const size_t id = static_cast<size_t>(p.ids[t]);
    float* out = p.out + t * p.dim;
    // int8: q * (row scale * scale), one rounding per element.
    const float scale = p.type == EmbeddingType::kI8 ? p.row_scales[id] * p.scale : p.scale;
    for (size_t i = 0; i < p.dim; ++i) out[i] = stored(p.type, p.table, stored_index(p, id, i)) * scale;
  }
}

}  // namespace kernels
}  // namespace focal
