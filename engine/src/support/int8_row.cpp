#include "focal/internal/int8_row.h"

namespace focal {

float quantize_int8_row(const float* x, size_t k, int8_t* q) {
  float inv;
  const float scale = int8_row_scale(x, k, &inv);
  if (inv > 0.0f) {
    for (size_t i = 0; i < k; ++i) q[i] = quantize_int8(x[i], inv);
  } else {
    for (size_t i = 0; i < k; ++i) q[i] = 0;
  }
  return scale;
}

}  // namespace focal
