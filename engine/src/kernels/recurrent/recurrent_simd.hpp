// The LSTM and GRU pointwise steps, written once against Vec<Arch> (simd/vec_*.hpp) and
// compiled once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an
// anonymous namespace: each ISA's translation unit keeps a private copy, so code built
// with AVX-512 flags can never be merged into another ISA's path.
//
// Vectors run along the hidden units of one batch row; the last H % W units go through
// zero-padded vectors of the same expressions. sigmoid is 1 / (1 + e^-x) with the
// accurate exp (e^-x overflows to +inf below x = -88.7, giving 0; the exact value is
// below 4e-39 there), tanh xsimd's (saturating to +-1).
#pragma once

#include <cstddef>

#include "recurrent/recurrent_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

template <class Arch>
struct Recurrent {
  FOCAL_VEC_TYPES(Arch)

  static vec sigmoid(vec x) { return V::splat(1.0f) / (V::splat(1.0f) + V::exp(V::zero() - x)); }

  // Loads `t` floats (t == W: a whole vector; t < W: zero-padded).
  static vec load(const float* p, size_t t) {
    return t == W ? V::load(p) : V::load_partial(p, t, 0.0f);
  }
  static void store(float* p, size_t t, vec v) {
    if (t == W) {
      V::store(p, v);
    } else {
      V::store_partial(p, t, v);
    }
  }

  // Units [j, j + t) of one row.
  static void lstm_units(const float* gx, const float* gh, const float* c_prev, float* c_out,
                         float* h_out, size_t H, size_t j, size_t t) {
    const vec i = sigmoid(load(gx + j, t) + load(gh + j, t));
    const vec f = sigmoid(load(gx + H + j, t) + load(gh + H + j, t));
    const vec g = V::tanh(load(gx + 2 * H + j, t) + load(gh + 2 * H + j, t));
    const vec o = sigmoid(load(gx + 3 * H + j, t) + load(gh + 3 * H + j, t));
    const vec c = V::fma(f, load(c_prev + j, t), i * g);
    store(c_out + j, t, c);
    store(h_out + j, t, o * V::tanh(c));
  }

  static void lstm_cell(const LstmCellParams& p) {
    const size_t H = p.hidden;
    const size_t gxs = recurrent_stride(p.gates_x_stride, 4 * H),
                 ghs = recurrent_stride(p.gates_h_stride, 4 * H),
                 cs = recurrent_stride(p.c_stride, H), hs = recurrent_stride(p.h_stride, H);
    for (size_t b = 0; b < p.batch; ++b) {
      const float* gx = p.gates_x + b * gxs;
      const float* gh = p.gates_h + b * ghs;
      const float* c_prev = p.c_prev + b * cs;
      float* c = p.c + b * cs;
      float* h = p.h + b * hs;
      size_t j = 0;
      for (; j + W <= H; j += W) lstm_units(gx, gh, c_prev, c, h, H, j, W);
      if (j < H) lstm_units(gx, gh, c_prev, c, h, H, j, H - j);
    }
  }

  static void gru_units(const float* gx, const float* gh, const float* h_prev, float* h_out,
                        size_t H, size_t j, size_t t) {
    const vec r = sigmoid(load(gx + j, t) + load(gh + j, t));
    const vec z = sigmoid(load(gx + H + j, t) + load(gh + H + j, t));
    const vec n = V::tanh(V::fma(r, load(gh + 2 * H + j, t), load(gx + 2 * H + j, t)));
    store(h_out + j, t, V::fma(z, load(h_prev + j, t) - n, n));
  }

  static void gru_cell(const GruCellParams& p) {
    const size_t H = p.hidden;
    const size_t gxs = recurrent_stride(p.gates_x_stride, 3 * H),
                 ghs = recurrent_stride(p.gates_h_stride, 3 * H),
                 hs = recurrent_stride(p.h_stride, H);
    for (size_t b = 0; b < p.batch; ++b) {
      const float* gx = p.gates_x + b * gxs;
      const float* gh = p.gates_h + b * ghs;
      size_t j = 0;
      for (; j + W <= H; j += W) gru_units(gx, gh, p.h_prev + b * hs, p.h + b * hs, H, j, W);
      if (j < H) gru_units(gx, gh, p.h_prev + b * hs, p.h + b * hs, H, j, H - j);
    }
  }

  static constexpr RecurrentKernelTable table(const char* isa) {
    return {isa, lstm_cell, gru_cell};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
