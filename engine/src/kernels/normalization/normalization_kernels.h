// Normalization over the last axis of [rows, width] f32 data: layernorm, rmsnorm and
// l2-normalize, as a kernel table per instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written
// once in normalization_simd.hpp) and the scalar reference twins (reference.cpp).
// Rows are dense (row r starts at r * width); y may alias x. Kernels trust their
// arguments (width >= 1, epsilon > 0, non-null pointers); they never allocate.
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

struct LayerNormParams {
  size_t rows;
  size_t width;
  float epsilon;  // layernorm, rmsnorm: added to the variance / mean square; l2: the minimum norm
};

// y = (x - mean) / sqrt(var + epsilon) * gamma + beta, with the biased variance (as
// PyTorch's nn.LayerNorm). Two passes over x for the statistics: the f32 mean m, then
// the deviations d = x - m, whose sum corrects the rounding error of m ("corrected
// two-pass", Chan, Golub and LeVeque 1983):
//   shift = sum(d) / n,  var = sum(d^2) / n - shift^2,  y = (d - shift) / sqrt(var + eps).
// It costs an add per element in each of the last two passes. The plain two-pass form
// fails on rows of equal values: the f32 mean of 768 copies of 1234.567 is a few ulp
// off, and (x - m) / sqrt(var + 1e-5) is then of order 1 instead of 0 (measured: up to
// 0.9996 for values within +-1e4). Corrected, such rows give beta (exactly, in practice:
// d is a small multiple of ulp(m), so its sums are exact and d - shift is 0).
// d - shift rather than x - (m + shift): m + shift would be rounded to f32 again, an
// error of up to ulp(m) / 2 against a std that may be far smaller (|mean| >> std).
// gamma, beta: [width].
void layernorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma,
                             const float* beta, float* y);

// y = x / sqrt(mean(x^2) + epsilon) * gamma (T5, Llama; gamma: [width]). Gemma's
// (1 + gamma) form is this with gamma + 1 stored as the weight.
void rmsnorm_f32_reference(const LayerNormParams& p, const float* x, const float* gamma, float* y);

// y = x / max(||x||_2, epsilon) (PyTorch's F.normalize, p = 2, whose eps is 1e-12).
// The sum of squares is f32: |x| must stay below ~1e19 (its square overflows above).
// A NaN in a row makes the whole row NaN (as PyTorch's clamp_min keeps a NaN norm); a
// row of zeros gives zeros.
void l2_normalize_f32_reference(const LayerNormParams& p, const float* x, float* y);

// In an unnamed namespace, as every helper shared with the per-ISA translation units.
namespace {
// max(norm, epsilon) that keeps a NaN norm: std::fmax would return epsilon and turn a
// row holding one NaN into finite values scaled by 1 / epsilon.
inline float l2_divisor(float norm, float epsilon) { return norm < epsilon ? epsilon : norm; }
}  // namespace

using LayerNormFn = void (*)(const LayerNormParams& p, const float* x, const float* gamma,
                             const float* beta, float* y);
using RmsNormFn = void (*)(const LayerNormParams& p, const float* x, const float* gamma, float* y);
using L2NormalizeFn = void (*)(const LayerNormParams& p, const float* x, float* y);

struct NormalizationKernelTable {
  const char* isa;
  LayerNormFn layernorm;
  RmsNormFn rmsnorm;
  L2NormalizeFn l2_normalize;
};

}  // namespace kernels
}  // namespace focal
