#include "reference/int8_rows.h"

#include <cstdint>
#include <vector>

#include "focal/internal/int8_row.h"

namespace focal {
namespace reference {

double quantize_row(const double* x, size_t k, double* q) {
  std::vector<float> row(k);  // the f32 row the engine quantizes
  for (size_t i = 0; i < k; ++i) row[i] = static_cast<float>(x[i]);
  std::vector<int8_t> ints(k);
  const float scale = quantize_int8_row(row.data(), k, ints.data());
  for (size_t i = 0; i < k; ++i) q[i] = ints[i];
  return scale;
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
