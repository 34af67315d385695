#include "attention/kv_store.h"

#include <cmath>
#include <cstdint>

#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

float quantize_kv_head(const float* x, size_t n, int8_t* q) {
  float max_abs = 0.0f;
  bool finite = true;
  for (size_t d = 0; d < n; ++d) {
    finite = finite && std::isfinite(x[d]);
    max_abs = std::fabs(x[d]) > max_abs ? std::fabs(x[d]) : max_abs;
  }
  if (!finite || max_abs == 0.0f) {
    for (size_t d = 0; d < n; ++d) q[d] = 0;
    return finite ? 0.0f : NAN;
  }
  const float scale = max_abs / 127.0f;
  for (size_t d = 0; d < n; ++d) {
    // |x / scale| <= 127 up to rounding of the division: clamp the integer.
    const long v = std::lrint(x[d] / scale);
    q[d] = static_cast<int8_t>(v > 127 ? 127 : v < -127 ? -127 : v);
  }
  return scale;
}

void store_kv_rows(const KvRows& rows, KvType type, void* dst, size_t dst_stride, float* scales,
                   size_t scale_stride) {
  const size_t features = rows.heads * rows.head_dim;
  for (size_t t = 0; t < rows.tokens; ++t) {
    const float* x = rows.x + t * rows.x_stride;
    if (type == KvType::kI8) {
      int8_t* q = static_cast<int8_t*>(dst) + t * dst_stride;
      for (size_t h = 0; h < rows.heads; ++h) {
        scales[t * scale_stride + h] = quantize_kv_head(x + h * rows.head_dim, rows.head_dim, q + h * rows.head_dim);
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
