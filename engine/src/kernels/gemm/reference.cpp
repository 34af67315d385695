// Scalar reference twin of the GEMM kernels: plain loops over the packed weights, one
// f32 sum per output in increasing k, then scale (int8), bias and the activation.
#include <cstring>

#include "dense/dense_kernels.h"
#include "gemm/gemm_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// The stored weight of output n, input i, as a float (int8: q, unscaled).
float stored_weight(const GemmProblem& p, size_t n, size_t i) {
  const size_t at = ((n / kGemmPanel) * p.k + i) * kGemmPanel + n % kGemmPanel;
  const uint8_t* bytes = static_cast<const uint8_t*>(p.weights);
  switch (p.type) {
    case GemmWeights::kF32: {
      float value;
      std::memcpy(&value, bytes + at * 4, 4);
      return value;
    }
    case GemmWeights::kF16: {
      uint16_t half;
      std::memcpy(&half, bytes + at * 2, 2);
      return simd::half_to_float(half);
    }
    case GemmWeights::kBF16: {
      uint16_t bf16;
      std::memcpy(&bf16, bytes + at * 2, 2);
      return simd::bf16_to_float(bf16);
    }
    case GemmWeights::kI8:
      return static_cast<float>(static_cast<int8_t>(bytes[at]));
  }
  return 0.0f;
}

}  // namespace

void gemm_reference_packed(const GemmProblem& p) {
  for (size_t m = 0; m < p.m; ++m) {
    const float* x = p.x + m * p.x_stride;
    float* y = p.y + m * p.y_stride;
    for (size_t n = 0; n < p.n; ++n) {
      float sum = 0.0f;
      for (size_t i = 0; i < p.k; ++i) sum += x[i] * stored_weight(p, n, i);
      if (p.scales != nullptr) sum *= p.scales[n];
      if (p.bias != nullptr) sum += p.bias[n];
      y[n] = apply_activation(p.activation, sum);
    }
  }
}

}  // namespace kernels
}  // namespace focal
