// Scalar reference twin of the int4 GEMM: the int8 GEMM's row quantization, exact int32
// sums per group from the packed nibbles read one by one, the group scales folded in
// group after group with fmaf, then the row scale and the GEMM family's epilogue.
#include <cmath>
#include <cstring>

#include "dense/dense_kernels.h"
#include "q4gemm/q4gemm_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

int32_t q4_stored_q(const Q4GemmProblem& p, size_t n, size_t i) {
  const size_t j = n % kGemmPanel, g = i / p.group;
  const uint8_t* quad = p.weights + n / kGemmPanel * p.panel_bytes + g * q4_group_stride(p.group) +
                        (i % p.group) / kQ4QuadK * kQ4QuadBytes;
  const uint8_t byte = quad[(j % (kGemmPanel / 2)) * kQ4QuadK + i % kQ4QuadK];
  const int32_t u = j >= kGemmPanel / 2 ? byte >> 4 : byte & 0x0F;
  return u - kQ4Offset;
}

float q4_stored_scale(const Q4GemmProblem& p, size_t n, size_t g) {
  const uint8_t* scales = p.weights + n / kGemmPanel * p.panel_bytes + g * q4_group_stride(p.group) +
                          q4_group_quads(p.rows.gemm.k, p.group, g) * kQ4QuadBytes;
  uint16_t h = 0;
  std::memcpy(&h, scales + (n % kGemmPanel) * 2, 2);
  return simd::half_to_float(h);
}

void q4_quantize_rows_reference(const Q4GemmProblem& p, size_t row_begin, size_t row_end) {
  const size_t k = p.rows.gemm.k;
  for (size_t r = row_begin; r < row_end; ++r) {
    uint8_t* q = p.rows.a + r * p.rows.a_stride;
    p.rows.a_scales[r] = quantize_row_reference(p.rows.gemm.x + r * p.rows.gemm.x_stride, k, 0, q);
    for (size_t g = 0; g < p.groups; ++g) {
      int32_t sum = 0;
      for (size_t i = g * p.group; i < k && i < (g + 1) * p.group; ++i) sum += static_cast<int8_t>(q[i]);
      p.group_sums[r * p.groups + g] = sum;
    }
  }
}

void q4gemm_reference(const Q4GemmProblem& p) {
  const GemmProblem& gp = p.rows.gemm;
  q4_quantize_rows_reference(p, 0, gp.m);
  for (size_t r = 0; r < gp.m; ++r) {
    const int8_t* x = reinterpret_cast<const int8_t*>(p.rows.a + r * p.rows.a_stride);
    for (size_t n = 0; n < gp.n; ++n) {
      float f = 0.0f;
      for (size_t g = 0; g < p.groups; ++g) {
        int32_t sum = 0;
        for (size_t i = g * p.group; i < gp.k && i < (g + 1) * p.group; ++i) {
          sum += int32_t(x[i]) * q4_stored_q(p, n, i);
        }
        f = std::fmaf(static_cast<float>(sum), q4_stored_scale(p, n, g), f);
      }
      float v = f * p.rows.a_scales[r];
      if (gp.bias != nullptr) v += gp.bias[n];
      gp.y[r * gp.y_stride + n] = apply_activation(gp.activation, v);
    }
  }
}

}  // namespace kernels
}  // namespace focal
