// The position-encoding kernels (RoPE, sinusoidal), written once against Vec<Arch>
// (simd/vec_*.hpp) and compiled once per instruction set by dispatch/kernel_set_instance.cpp.
// Everything here is in an anonymous namespace: each ISA's translation unit keeps a
// private copy, so code built with AVX-512 flags can never be merged into another ISA's
// path.
//
// Both work on chunks of kLanes "lanes" (frequencies, or output dims in the interleaved
// layouts): per chunk the inverse frequencies are computed once (scalar, the helpers of
// position.h, so the reference has the same f32 values), then per position the angles
// and their sin/cos as vectors into stack arrays (3 x kLanes floats), which every head
// (RoPE) or batch (sinusoid) of that position reuses. The interleaved layouts compute
// each frequency's sin/cos in both lanes of its pair, which keeps the lanes aligned with
// the data (no shuffles but the pair swap) at twice the sin/cos work.
#pragma once

#include <cmath>
#include <cstddef>

#include "position/position_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr size_t kLanes = 64;  // a multiple of every vector width and even

template <class Arch>
struct Position {
  FOCAL_VEC_TYPES(Arch)
  static_assert(kLanes % W == 0 && W <= kLanes, "lanes must fill whole vectors");

  // sin and cos of position * inv[0, n) and up to the next whole vector (inv is zero
  // past the chunk's lanes).
  static void angles(float position, const float* inv, size_t n, float* sin_out, float* cos_out) {
    const vec pos = V::splat(position);
    for (size_t l = 0; l < n; l += W) {
      vec sn, c;
      V::sincos(pos * V::load(inv + l), &sn, &c);
      V::store(sin_out + l, sn);
      V::store(cos_out + l, c);
    }
  }

  // Half-split: lanes are pairs k in [k0, k0 + n); x[k] pairs with x[k + half].
  static void rotate_half_split(const float* x, float* y, size_t half, size_t k0, size_t n,
                                const float* sn, const float* c) {
    const float* x0 = x + k0;
    const float* x1 = x + k0 + half;
    float* y0 = y + k0;
    float* y1 = y + k0 + half;
    size_t l = 0;
    for (; l + W <= n; l += W) {
      const vec a = V::load(x0 + l), b = V::load(x1 + l);
      const vec cv = V::load(c + l), sv = V::load(sn + l);
      V::store(y0 + l, a * cv - b * sv);
      V::store(y1 + l, V::fma(a, sv, b * cv));
    }
    if (l < n) {
      const size_t t = n - l;
      const vec a = V::load_partial(x0 + l, t, 0.0f), b = V::load_partial(x1 + l, t, 0.0f);
      const vec cv = V::load(c + l), sv = V::load(sn + l);
      V::store_partial(y0 + l, t, a * cv - b * sv);
      V::store_partial(y1 + l, t, V::fma(a, sv, b * cv));
    }
  }

  // Interleaved: lanes are dims [d0, d0 + n) (d0 and n even); the pair of dim l is l ^ 1
  // and signed_sin holds -sin in even lanes, +sin in odd ones.
  static void rotate_interleaved(const float* x, float* y, size_t d0, size_t n,
                                 const float* signed_sin, const float* c) {
    const float* xs = x + d0;
    float* ys = y + d0;
    if constexpr (W == 1) {
      for (size_t l = 0; l < n; l += 2) {  // both of a pair read before either is written
        const float a = xs[l], b = xs[l + 1];
        ys[l] = V::fma(b, signed_sin[l], a * c[l]);
        ys[l + 1] = V::fma(a, signed_sin[l + 1], b * c[l + 1]);
      }
    } else {
      size_t l = 0;
      for (; l + W <= n; l += W) {
        const vec a = V::load(xs + l);
        V::store(ys + l, V::fma(V::swap_pairs(a), V::load(signed_sin + l), a * V::load(c + l)));
      }
      if (l < n) {  // an even count: pairs stay whole
        const size_t t = n - l;
        const vec a = V::load_partial(xs + l, t, 0.0f);
        V::store_partial(ys + l, t,
                         V::fma(V::swap_pairs(a), V::load(signed_sin + l), a * V::load(c + l)));
      }
    }
  }

  static void rope(const RopeParams& p) {
    const size_t rotary = rope_rotary_dim(p), half = rotary / 2;
    const RopeStrides st = rope_strides(p);
    const bool interleaved = p.layout == RopeLayout::kInterleaved;
    const size_t lanes = interleaved ? rotary : half;
    alignas(64) float inv[kLanes], sn[kLanes], c[kLanes];
    for (size_t l0 = 0; l0 < lanes; l0 += kLanes) {
      const size_t n = lanes - l0 < kLanes ? lanes - l0 : kLanes;
      for (size_t l = 0; l < kLanes; ++l) {
        const size_t k = interleaved ? (l0 + l) / 2 : l0 + l;
        inv[l] = l < n ? rope_pair_frequency(p, k, rotary) : 0.0f;
      }
      for (size_t b = 0; b < p.batch; ++b) {
        for (size_t s = 0; s < p.seq; ++s) {
          angles(rope_position(p, b, s), inv, n, sn, c);
          if (interleaved) {
            for (size_t l = 0; l < n; l += 2) sn[l] = -sn[l];
          }
          const size_t base = b * st.batch + s * st.seq;
          for (size_t h = 0; h < p.heads; ++h) {
            const float* x = p.x + base + h * st.head;
            float* y = p.y + base + h * st.head;
            if (interleaved) {
              rotate_interleaved(x, y, l0, n, sn, c);
            } else {
              rotate_half_split(x, y, half, l0, n, sn, c);
            }
          }
        }
      }
    }
    if (p.x == p.y || rotary == p.head_dim) return;
    const size_t rest = p.head_dim - rotary;
    for (size_t b = 0; b < p.batch; ++b) {
      for (size_t s = 0; s < p.seq; ++s) {
        for (size_t h = 0; h < p.heads; ++h) {
          const size_t offset = b * st.batch + s * st.seq + h * st.head + rotary;
          copy(p.x + offset, p.y + offset, rest);
        }
      }
    }
  }

  static void copy(const float* x, float* y, size_t n) {
    size_t i = 0;
    for (; i + W <= n; i += W) V::store(y + i, V::load(x + i));
    if (i < n) V::store_partial(y + i, n - i, V::load_partial(x + i, n - i, 0.0f));
  }

  // out[0, n) (+)= v[0, n), a vector at a time.
  static void put(float* out, const float* v, size_t n, bool accumulate) {
    size_t i = 0;
    for (; i + W <= n; i += W) {
      const vec value = V::load(v + i);
      V::store(out + i, accumulate ? V::load(out + i) + value : value);
    }
    if (i < n) {
      const size_t t = n - i;
      const vec value = V::load(v + i);
      V::store_partial(out + i, t, accumulate ? V::load_partial(out + i, t, 0.0f) + value : value);
    }
  }

  static void sinusoid(const SinusoidParams& p) {
    const size_t half = p.dim / 2;
    const bool interleaved = p.layout == SinusoidLayout::kInterleaved;
    const size_t lanes = interleaved ? 2 * half : half;
    alignas(64) float inv[kLanes], sn[kLanes], c[kLanes];
    for (size_t l0 = 0; l0 < lanes; l0 += kLanes) {
      const size_t n = lanes - l0 < kLanes ? lanes - l0 : kLanes;
      for (size_t l = 0; l < kLanes; ++l) {
        const size_t i = interleaved ? (l0 + l) / 2 : l0 + l;
        inv[l] = l < n ? sinusoid_inv_timescale(p, i) : 0.0f;
      }
      for (size_t r = 0; r < p.positions; ++r) {
        angles(sinusoid_position(p, r), inv, n, sn, c);
        if (interleaved) {  // sin in even lanes, cos in odd ones: one array
          for (size_t l = 1; l < n; l += 2) sn[l] = c[l];
        }
        for (size_t b = 0; b < p.batch; ++b) {
          float* out = p.out + (b * p.positions + r) * p.dim;
          if (interleaved) {
            put(out + l0, sn, n, p.accumulate);
          } else {
            put(out + l0, sn, n, p.accumulate);
            put(out + half + l0, c, n, p.accumulate);
          }
        }
      }
    }
    if (p.dim % 2 != 0 && !p.accumulate) {
      for (size_t b = 0; b < p.batch; ++b) {
        for (size_t r = 0; r < p.positions; ++r)
          p.out[(b * p.positions + r) * p.dim + p.dim - 1] = 0.0f;
      }
    }
  }

  static constexpr PositionKernelTable table(const char* isa) { return {isa, rope, sinusoid}; }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
