#include "attention/kv_store.h"

#include <cstdint>

#include "focal/internal/int8_row.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

void store_kv_rows(const KvRows& rows, KvType type, void* dst, size_t dst_stride, float* scales,
                   size_t scale_stride) {
  const size_t features = rows.heads * rows.head_dim;
  for (size_t t = 0; t < rows.tokens; ++t) {
    const float* x = rows.x + t * rows.x_stride;
    if (type == KvType::kI8) {
      int8_t* q = static_cast<int8_t*>(dst) + t * dst_stride;
      for (size_t h = 0; h < rows.heads; ++h) {
        scales[t * scale_stride + h] = quantize_int8_row(x + h * rows.head_dim, rows.head_dim, q + h * rows.head_dim);
      }
    } else if (type == KvType::kF16) {
      uint16_t* out = static_cast<uint16_t*>(dst) + t * dst_stride;
      for (size_t i = 0; i < features; ++i) out[i] = simd::float_to_half(x[i]);
    } else {
      float* out = static_cast<float*>(dst) + t * dst_stride;
      for (size_t i = 0; i < features; ++i) out[i] = x[i];
    }
  }
}

}  // namespace kernels
}  // namespace focal
