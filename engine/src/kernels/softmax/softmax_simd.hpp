// The softmax kernel, written once against Vec<Arch> (simd/vec_*.hpp) and compiled once
// per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an anonymous
// namespace: each ISA's translation unit keeps a private copy, so code built with
// AVX-512 flags can never be merged into another ISA's path.
//
// Three passes over a row: the max (exact in any order), y = exp2((x - max) * log2 e)
// with the sum, then y *= 1 / sum. Vectors run along the row; the last width % W
// elements go through one vector padded with -inf (exp2(-inf) = 0 adds nothing).
#pragma once

#include <cmath>
#include <cstddef>

#include "simd/math_constants.hpp"
#include "simd/vec_scalar.hpp"
#include "softmax/softmax_kernels.h"

namespace focal {
namespace kernels {
namespace {


template <class Arch>
struct Softmax {
  FOCAL_VEC_TYPES(Arch)

  static float row_max(const float* x, size_t n) {
    vec m0 = V::splat(-INFINITY), m1 = m0;
    size_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
      m0 = V::max(m0, V::load(x + i));
      m1 = V::max(m1, V::load(x + i + W));
    }
    if (i + W <= n) {
      m0 = V::max(m0, V::load(x + i));
      i += W;
    }
    if (i < n) m1 = V::max(m1, V::load_partial(x + i, n - i, -INFINITY));
    return V::reduce_max(V::max(m0, m1));
  }

  static void softmax(size_t rows, size_t width, const float* x, float* y) {
    for (size_t r = 0; r < rows; ++r) {
      const float* xr = x + r * width;
      float* yr = y + r * width;
      const float max = row_max(xr, width);
      size_t i = 0;
      if (max == -INFINITY) {  // nothing visible: zeros, not NaN
        for (; i + W <= width; i += W) V::store(yr + i, V::zero());
        if (i < width) V::store_partial(yr + i, width - i, V::zero());
        continue;
      }
      const vec m = V::splat(max), log2e = V::splat(kLog2e);
      vec s0 = V::zero(), s1 = V::zero();
      for (; i + 2 * W <= width; i += 2 * W) {
        const vec e0 = V::exp2((V::load(xr + i) - m) * log2e);
        const vec e1 = V::exp2((V::load(xr + i + W) - m) * log2e);
        V::store(yr + i, e0);
        V::store(yr + i + W, e1);
        s0 = s0 + e0;
        s1 = s1 + e1;
      }
      if (i + W <= width) {
        const vec e0 = V::exp2((V::load(xr + i) - m) * log2e);
        V::store(yr + i, e0);
        s0 = s0 + e0;
        i += W;
      }
      if (i < width) {
        const vec e1 = V::exp2((V::load_partial(xr + i, width - i, -INFINITY) - m) * log2e);
        V::store_partial(yr + i, width - i, e1);
        s1 = s1 + e1;
      }
      // sum >= 1: the max itself contributes exp2(0) = 1.
      const vec s = V::splat(1.0f / V::reduce_add(s0 + s1));
      for (i = 0; i + W <= width; i += W) V::store(yr + i, V::load(yr + i) * s);
      if (i < width)
        V::store_partial(yr + i, width - i, V::load_partial(yr + i, width - i, 0.0f) * s);
    }
  }

  static constexpr SoftmaxKernelTable table(const char* isa) { return {isa, softmax}; }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
