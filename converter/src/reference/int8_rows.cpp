#include "reference/int8_rows.h"

#include <cmath>
#include <vector>

namespace focal {
namespace reference {

double quantize_row(const double* x, size_t k, double* q) {
  float amax = 0.0f;
  bool finite = true;
  for (size_t i = 0; i < k; ++i) {
    const float v = static_cast<float>(x[i]);
    finite = finite && std::isfinite(v);
    amax = std::fmax(amax, std::fabs(v));
  }
  for (size_t i = 0; i < k; ++i) q[i] = 0.0;
  if (!finite) return NAN;
  if (amax == 0.0f) return 0.0;
  const float inv = 127.0f / amax;
  for (size_t i = 0; i < k; ++i) {
    const float rounded = std::nearbyint(static_cast<float>(x[i]) * inv);  // nearest even
    q[i] = std::fmin(127.0f, std::fmax(-127.0f, rounded));
  }
  return amax / 127.0f;
}

void int8_dense_rows(const Operand& w, const Operand* bias, const double* x, size_t x_stride, size_t rows,
                     double* y, size_t y_stride) {
  const size_t out = w.dim(0), in = w.dim(1);
  const bool has_bias = bias != nullptr && bias->present();
  std::vector<double> q(rows * in), scales(rows), row(in);
  for (size_t r = 0; r < rows; ++r) scales[r] = quantize_row(x + r * x_stride, in, &q[r * in]);
  for (size_t n = 0; n < out; ++n) {
    w.weight_row(n, row.data());
    const double b = has_bias ? bias->at(n) : 0.0;
    for (size_t r = 0; r < rows; ++r) {
      double sum = 0.0;  // of q_x * q_w * scale_w: exact products, as the integer sums
      for (size_t k = 0; k < in; ++k) sum += q[r * in + k] * row[k];
      y[r * y_stride + n] = sum * scales[r] + b;
    }
  }
}

}  // namespace reference
}  // namespace focal
