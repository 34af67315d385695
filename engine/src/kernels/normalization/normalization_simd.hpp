// The normalization kernels (layernorm, rmsnorm, l2-normalize), written once against
// Vec<Arch> (simd/vec_*.hpp) and compiled once per instruction set by
// dispatch/kernel_set_instance.cpp. Everything here is in an anonymous namespace: each ISA's
// translation unit keeps a private copy, so code built with AVX-512 flags can never be
// merged into another ISA's path.
//
// Vectors run along a row; row sums use two vector accumulators (independent add
// chains). The last width % W elements go through one zero-padded vector (zeros add
// nothing), so no scalar code runs in SIMD translation units. The sums are in another
// order than the reference's, so results differ from it by rounding (tests compare both
// with a double computation).
#pragma once

#include <cmath>
#include <cstddef>

#include "normalization/normalization_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

template <class Arch>
struct Normalization {
  FOCAL_VEC_TYPES(Arch)

  static float row_sum(const float* x, size_t n) {
    vec a0 = V::zero(), a1 = V::zero();
    size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      a0 = a0 + V::load(x + i);
      a1 = a1 + V::load(x + i + W);
    }
    if (i + W <= n) {
      a0 = a0 + V::load(x + i);
      i += W;
    }
    if (i < n) a1 = a1 + V::load_partial(x + i, n - i, 0.0f);
    return V::reduce_add(a0 + a1);
  }

  static float row_sum_squares(const float* x, size_t n) {
    vec a0 = V::zero(), a1 = V::zero();
    size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      const vec x0 = V::load(x + i), x1 = V::load(x + i + W);
      a0 = V::fma(x0, x0, a0);
      a1 = V::fma(x1, x1, a1);
    }
    if (i + W <= n) {
      const vec x0 = V::load(x + i);
      a0 = V::fma(x0, x0, a0);
      i += W;
    }
    if (i < n) {
      const vec x1 = V::load_partial(x + i, n - i, 0.0f);
      a1 = V::fma(x1, x1, a1);
    }
    return V::reduce_add(a0 + a1);
  }

  // sum(x - mean) and sum((x - mean)^2) over a row.
  static void row_deviations(const float* x, size_t n, float mean, float* sum, float* squares) {
    const vec m = V::splat(mean);
    vec s0 = V::zero(), s1 = V::zero(), q0 = V::zero(), q1 = V::zero();
    size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      const vec d0 = V::load(x + i) - m, d1 = V::load(x + i + W) - m;
      s0 = s0 + d0;
      s1 = s1 + d1;
      q0 = V::fma(d0, d0, q0);
      q1 = V::fma(d1, d1, q1);
    }
    if (i + W <= n) {
      const vec d0 = V::load(x + i) - m;
      s0 = s0 + d0;
      q0 = V::fma(d0, d0, q0);
      i += W;
    }
    if (i < n) {  // padded with the mean: deviations of 0
      const vec d1 = V::load_partial(x + i, n - i, mean) - m;
      s1 = s1 + d1;
      q1 = V::fma(d1, d1, q1);
    }
    *sum = V::reduce_add(s0 + s1);
    *squares = V::reduce_add(q0 + q1);
  }

  static void layernorm(const LayerNormParams& p, const float* x, const float* gamma,
                        const float* beta, float* y) {
    const size_t n = p.width;
    const float nf = static_cast<float>(n);
    for (size_t r = 0; r < p.rows; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      const float mean = row_sum(xr, n) / nf;
      float sum, squares;
      row_deviations(xr, n, mean, &sum, &squares);
      const float shift = sum / nf;
      const float variance = std::fmax(squares / nf - shift * shift, 0.0f);
      const float inv_std = 1.0f / std::sqrt(variance + p.epsilon);
      const vec m = V::splat(mean), sh = V::splat(shift), s = V::splat(inv_std);
      size_t i = 0;
      for (; i + W <= n; i += W) {
        const vec z = ((V::load(xr + i) - m) - sh) * s;
        V::store(yr + i, V::fma(z, V::load(gamma + i), V::load(beta + i)));
      }
      if (i < n) {
        const size_t t = n - i;
        const vec z = ((V::load_partial(xr + i, t, 0.0f) - m) - sh) * s;
        V::store_partial(
            yr + i, t,
            V::fma(z, V::load_partial(gamma + i, t, 0.0f), V::load_partial(beta + i, t, 0.0f)));
      }
    }
  }

  static void rmsnorm(const LayerNormParams& p, const float* x, const float* gamma, float* y) {
    const size_t n = p.width;
    for (size_t r = 0; r < p.rows; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      const float mean_square = row_sum_squares(xr, n) / static_cast<float>(n);
      const float inv_rms = 1.0f / std::sqrt(mean_square + p.epsilon);
      const vec s = V::splat(inv_rms);
      size_t i = 0;
      for (; i + W <= n; i += W) V::store(yr + i, V::load(xr + i) * s * V::load(gamma + i));
      if (i < n) {
        const size_t t = n - i;
        V::store_partial(
            yr + i, t, V::load_partial(xr + i, t, 0.0f) * s * V::load_partial(gamma + i, t, 0.0f));
      }
    }
  }

  static void l2_normalize(const LayerNormParams& p, const float* x, float* y) {
    const size_t n = p.width;
    for (size_t r = 0; r < p.rows; ++r) {
      const float* xr = x + r * n;
      float* yr = y + r * n;
      const float inv_norm = 1.0f / l2_divisor(std::sqrt(row_sum_squares(xr, n)), p.epsilon);
      const vec s = V::splat(inv_norm);
      size_t i = 0;
      for (; i + W <= n; i += W) V::store(yr + i, V::load(xr + i) * s);
      if (i < n) V::store_partial(yr + i, n - i, V::load_partial(xr + i, n - i, 0.0f) * s);
    }
  }

  static constexpr NormalizationKernelTable table(const char* isa) {
    return {isa, layernorm, rmsnorm, l2_normalize};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
