// Scalar reference twin of the int8 GEMM: row quantization as specified in
// qgemm_kernels.h, exact int32 sums from the packed weights read element by element,
// then the dequantized epilogue.
#include <cmath>
#include <cstring>

#include "dense/dense_kernels.h"
#include "focal/internal/int8_row.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {

float quantize_row_reference(const float* x, size_t k, uint8_t offset, uint8_t* q_out) {
  const float scale = quantize_int8_row(x, k, reinterpret_cast<int8_t*>(q_out));
  for (size_t i = 0; i < k; ++i) q_out[i] = static_cast<uint8_t>(q_out[i] + offset);
  for (size_t i = k; i < qgemm_row_bytes(k); ++i) q_out[i] = offset;
  return scale;
}

namespace {

// The stored q of output n, input i (layout of include/focal/gemm.h, int8-dot).
int32_t stored_q(const QGemmProblem& p, size_t n, size_t i) {
  const size_t panel = n / kGemmPanel, j = n % kGemmPanel;
  const size_t at = ((panel * p.groups + i / kQGemmGroup) * kGemmPanel + j) * kQGemmGroup + i % kQGemmGroup;
  return p.weights[at];
}

}  // namespace

void qgemm_sums_reference(const QGemmProblem& p, int32_t* sums) {
  for (size_t r = 0; r < p.gemm.m; ++r) {
    const int8_t* q = reinterpret_cast<const int8_t*>(p.a + r * p.a_stride);
    for (size_t n = 0; n < p.gemm.n; ++n) {
      int32_t sum = 0;
      for (size_t i = 0; i < p.gemm.k; ++i) sum += int32_t(q[i]) * stored_q(p, n, i);
      sums[r * p.gemm.n + n] = sum;
    }
  }
}

void qgemm_reference(const QGemmProblem& p) {
  for (size_t r = 0; r < p.gemm.m; ++r) {
    p.a_scales[r] = quantize_row_reference(p.gemm.x + r * p.gemm.x_stride, p.gemm.k, 0,
                                           p.a + r * p.a_stride);
  }
  for (size_t r = 0; r < p.gemm.m; ++r) {
    const int8_t* q = reinterpret_cast<const int8_t*>(p.a + r * p.a_stride);
    float* y = p.gemm.y + r * p.gemm.y_stride;
    for (size_t n = 0; n < p.gemm.n; ++n) {
      int32_t sum = 0;
      for (size_t i = 0; i < p.gemm.k; ++i) sum += int32_t(q[i]) * stored_q(p, n, i);
      float value = static_cast<float>(sum) * p.a_scales[r];
      value *= p.gemm.scales[n];
      if (p.gemm.bias != nullptr) value += p.gemm.bias[n];
      y[n] = apply_activation(p.gemm.activation, value);
    }
  }
}

}  // namespace kernels
}  // namespace focal
