// Scalar reference twin of the dense kernels: plain loops, f32 accumulation in order.
#include <cmath>

#include "dense/dense_kernels.h"

namespace focal {
namespace kernels {

float apply_activation(Activation activation, float x) {
  switch (activation) {
    case Activation::kNone:
      return x;
    case Activation::kRelu:
      return x > 0.0f ? x : 0.0f;
    case Activation::kGeluErf:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
    case Activation::kGeluTanh: {
      // 0.7978845608 = sqrt(2 / pi), as in GPT-2's "gelu_new".
      const float inner = 0.79788456080286536f * (x + 0.044715f * x * x * x);
      return 0.5f * x * (1.0f + std::tanh(inner));
    }
    case Activation::kSilu:
      return x / (1.0f + std::exp(-x));
    case Activation::kTanh:
      return std::tanh(x);
    case Activation::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
  }
  return x;
}

void dense_f32_reference(const DenseParams& p, const float* x, const float* w, const float* bias,
                         float* y) {
  for (size_t m = 0; m < p.rows; ++m) {
    const float* x_row = x + m * p.in;
    for (size_t n = 0; n < p.out; ++n) {
      const float* w_row = w + n * p.in;
      float sum = bias ? bias[n] : 0.0f;
      for (size_t k = 0; k < p.in; ++k) sum += x_row[k] * w_row[k];
      y[m * p.out + n] = apply_activation(p.activation, sum);
    }
  }
}

}  // namespace kernels
}  // namespace focal
