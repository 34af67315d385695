#include <cmath>

#include "elementwise/elementwise_kernels.h"

namespace focal {
namespace kernels {

void add_f32_reference(size_t count, const float* a, const float* b, float* y) {
  for (size_t i = 0; i < count; ++i) y[i] = a[i] + b[i];
}

void swiglu_f32_reference(const GatedParams& p, const float* a, const float* b, float* y) {
  const size_t as = gated_stride(p.a_stride, p.width), bs = gated_stride(p.b_stride, p.width),
               ys = gated_stride(p.y_stride, p.width);
  for (size_t r = 0; r < p.rows; ++r) {
    for (size_t i = 0; i < p.width; ++i) {
      const float x = a[r * as + i];
      y[r * ys + i] = x / (1.0f + std::exp(-x)) * b[r * bs + i];
    }
  }
}

void geglu_f32_reference(const GatedParams& p, GeluForm form, const float* a, const float* b,
                         float* y) {
  const size_t as = gated_stride(p.a_stride, p.width), bs = gated_stride(p.b_stride, p.width),
               ys = gated_stride(p.y_stride, p.width);
  for (size_t r = 0; r < p.rows; ++r) {
    for (size_t i = 0; i < p.width; ++i) {
      const float x = a[r * as + i];
      const float t = form == GeluForm::kErf
                          ? std::erf(x * 0.70710678118654752f)
                          : std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x));
      y[r * ys + i] = 0.5f * x * (1.0f + t) * b[r * bs + i];
    }
  }
}

}  // namespace kernels
}  // namespace focal
