// The elementwise kernels (residual add, SwiGLU, GeGLU), written once against Vec<Arch>
// (simd/vec_*.hpp) and compiled once per instruction set by dispatch/kernel_set_instance.cpp.
// Everything here is in an anonymous namespace: each ISA's translation unit keeps a
// private copy, so code built with AVX-512 flags can never be merged into another ISA's
// path. Vectors run along a row; the last width % W elements go through one
// zero-padded vector of the same expression.
#pragma once

#include <cstddef>

#include "elementwise/elementwise_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// The activations, as tags whose apply<V> works on one Vec of any ISA.
struct Silu {
  // x / (1 + e^-x): e^-x overflows to +inf below x = -88.7 and the quotient is then -0
  // (the exact value is below 1e-36 in magnitude).
  template <class V>
  static typename V::type apply(typename V::type x) {
    return x / (V::splat(1.0f) + V::exp(V::zero() - x));
  }
};
struct GeluErf {
  // 0.5 x (1 + erf(x / sqrt 2)) as fma(0.5 x, erf, 0.5 x).
  template <class V>
  static typename V::type apply(typename V::type x) {
    const typename V::type half_x = V::splat(0.5f) * x;
    return V::fma(half_x, V::erf(x * V::splat(0.70710678118654752f)), half_x);
  }
};
struct GeluTanh {
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), the cube as fma(0.044715 x, x^2, x).
  template <class V>
  static typename V::type apply(typename V::type x) {
    const typename V::type half_x = V::splat(0.5f) * x;
    const typename V::type inner =
        V::splat(0.79788456080286536f) * V::fma(V::splat(0.044715f) * x, x * x, x);
    return V::fma(half_x, V::tanh(inner), half_x);
  }
};

template <class Arch>
struct Elementwise {
  FOCAL_VEC_TYPES(Arch)

  static void add(size_t count, const float* a, const float* b, float* y) {
    size_t i = 0;
    for (; i + 2 * W <= count; i += 2 * W) {
      const vec y0 = V::load(a + i) + V::load(b + i);
      const vec y1 = V::load(a + i + W) + V::load(b + i + W);
      V::store(y + i, y0);
      V::store(y + i + W, y1);
    }
    for (; i + W <= count; i += W) V::store(y + i, V::load(a + i) + V::load(b + i));
    if (i < count) {
      const size_t t = count - i;
      V::store_partial(y + i, t, V::load_partial(a + i, t, 0.0f) + V::load_partial(b + i, t, 0.0f));
    }
  }

  template <class Act>
  static void gated(const GatedParams& p, const float* a, const float* b, float* y) {
    const size_t as = gated_stride(p.a_stride, p.width), bs = gated_stride(p.b_stride, p.width),
                 ys = gated_stride(p.y_stride, p.width);
    for (size_t r = 0; r < p.rows; ++r) {
      const float* ar = a + r * as;
      const float* br = b + r * bs;
      float* yr = y + r * ys;
      size_t i = 0;
      for (; i + W <= p.width; i += W) {
        V::store(yr + i, Act::template apply<V>(V::load(ar + i)) * V::load(br + i));
      }
      if (i < p.width) {
        const size_t t = p.width - i;
        V::store_partial(yr + i, t,
                         Act::template apply<V>(V::load_partial(ar + i, t, 0.0f)) *
                             V::load_partial(br + i, t, 0.0f));
      }
    }
  }

  static constexpr ElementwiseKernelTable table(const char* isa) {
    return {isa, add, gated<Silu>, gated<GeluErf>, gated<GeluTanh>};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
