#include <cmath>

#include "softmax/softmax_kernels.h"

namespace focal {
namespace kernels {

void softmax_f32_reference(size_t rows, size_t width, const float* x, float* y) {
  for (size_t r = 0; r < rows; ++r) {
    const float* xr = x + r * width;
    float* yr = y + r * width;
    float max_value = -INFINITY;
    for (size_t i = 0; i < width; ++i) max_value = xr[i] > max_value ? xr[i] : max_value;
    if (max_value == -INFINITY) {
      for (size_t i = 0; i < width; ++i) yr[i] = 0.0f;
      continue;
    }
    float sum = 0.0f;
    for (size_t i = 0; i < width; ++i) {
      yr[i] = std::exp(xr[i] - max_value);
      sum += yr[i];
    }
    const float inv_sum = 1.0f / sum;
    for (size_t i = 0; i < width; ++i) yr[i] *= inv_sum;
  }
}

}  // namespace kernels
}  // namespace focal
