// Dense (fully connected) layer: y[m, n] = act(sum_k x[m, k] * w[n, k] + bias[n]).
// Shapes: x [rows, in], w [out, in] row-major (PyTorch's nn.Linear layout), bias [out]
// or null, y [rows, out]. y must not alias x or w.
#pragma once

#include <cstddef>

#include "focal/activation.h"

namespace focal {
namespace kernels {

using Activation = focal::Activation;  // focal/activation.h

struct DenseParams {
  size_t rows;
  size_t in;
  size_t out;
  Activation activation;
};

// Applies `activation` to one value (shared by every dense implementation's epilogue).
float apply_activation(Activation activation, float x);

void dense_f32_reference(const DenseParams& p, const float* x, const float* w, const float* bias,
                         float* y);

}  // namespace kernels
}  // namespace focal
