// The attention scoring kernels, written once against Vec<Arch> (simd/vec_*.hpp) and
// compiled once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an
// anonymous namespace: each ISA's translation unit keeps a private copy, so code built
// with AVX-512 flags can never be merged into another ISA's path.
//
// Vectors run along the feature axis (units, dims) of one row at a time; xsimd 8.1 has
// no masked loads, so the last units % W features of an additive score go through one
// zero-padded vector (tanh(0) * 0 adds nothing), and the other kernels finish their
// rows with scalar code in the same accumulation order.
#pragma once

#include <cmath>
#include <cstddef>

#include "scoring/scoring_kernels.h"
#include "simd/math_constants.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {


// kSumVectors: vectors of output features weighted_sum keeps in registers (its
// accumulators; each needs one load per FMA, so 8 saturate two FMA pipes).
template <class Arch, size_t kSumVectors>
struct Scoring {
  FOCAL_VEC_TYPES(Arch)
  static constexpr size_t kDotKeys = 4;  // dot_scores: keys at once (independent FMA chains)

  static void additive_scores(const float* query_proj, const float* keys_proj, size_t stride,
                              const float* v, size_t units, size_t count, float* scores) {
    const size_t body = units / W * W, tail = units - body;
    // The tail as whole zero-padded vectors: query_proj and v once, each key's per row.
    alignas(64) float q_tail[W], v_tail[W], k_tail[W];
    for (size_t i = 0; i < W; ++i) {
      q_tail[i] = i < tail ? query_proj[body + i] : 0.0f;
      v_tail[i] = i < tail ? v[body + i] : 0.0f;
      k_tail[i] = 0.0f;
    }
    for (size_t j = 0; j < count; ++j) {
      const float* key = keys_proj + j * stride;
      vec acc = V::zero();
      for (size_t u = 0; u < body; u += W) {
        acc = V::fma(V::load(v + u), V::tanh(V::load(query_proj + u) + V::load(key + u)), acc);
      }
      if (tail != 0) {
        for (size_t i = 0; i < tail; ++i) k_tail[i] = key[body + i];
        acc = V::fma(V::load(v_tail), V::tanh(V::load(q_tail) + V::load(k_tail)), acc);
      }
      scores[j] = V::reduce_add(acc);
    }
  }

  static void dot_scores(const float* query, const float* keys, size_t stride, size_t dim,
                         size_t count, float scale, float* scores) {
    const size_t body = dim / W * W;
    size_t j = 0;
    for (; j + kDotKeys <= count; j += kDotKeys) {
      const float* k0 = keys + j * stride;
      const float* k1 = k0 + stride;
      const float* k2 = k1 + stride;
      const float* k3 = k2 + stride;
      vec a0 = V::zero(), a1 = V::zero(), a2 = V::zero(), a3 = V::zero();
      for (size_t d = 0; d < body; d += W) {
        const vec q = V::load(query + d);
        a0 = V::fma(q, V::load(k0 + d), a0);
        a1 = V::fma(q, V::load(k1 + d), a1);
        a2 = V::fma(q, V::load(k2 + d), a2);
        a3 = V::fma(q, V::load(k3 + d), a3);
      }
      float s0 = V::reduce_add(a0), s1 = V::reduce_add(a1), s2 = V::reduce_add(a2),
            s3 = V::reduce_add(a3);
      for (size_t d = body; d < dim; ++d) {
        s0 = std::fma(query[d], k0[d], s0);
        s1 = std::fma(query[d], k1[d], s1);
        s2 = std::fma(query[d], k2[d], s2);
        s3 = std::fma(query[d], k3[d], s3);
      }
      scores[j] = scale * s0;
      scores[j + 1] = scale * s1;
      scores[j + 2] = scale * s2;
      scores[j + 3] = scale * s3;
    }
    for (; j < count; ++j) {
      const float* k0 = keys + j * stride;
      vec a0 = V::zero();
      for (size_t d = 0; d < body; d += W) a0 = V::fma(V::load(query + d), V::load(k0 + d), a0);
      float s0 = V::reduce_add(a0);
      for (size_t d = body; d < dim; ++d) s0 = std::fma(query[d], k0[d], s0);
      scores[j] = scale * s0;
    }
  }

  static void softmax(float* x, size_t count) {
    if (count == 0) return;
    const size_t body = count / W * W;
    float max = -INFINITY;
    if (body != 0) {
      vec m = V::load(x);
      for (size_t j = W; j < body; j += W) m = V::max(m, V::load(x + j));
      max = V::reduce_max(m);
    }
    for (size_t j = body; j < count; ++j) max = std::fmax(max, x[j]);
    // (x - max) first, exact for scores near the max, then to the log2 domain.
    float total = 0.0f;
    if (max != -INFINITY) {
      const vec mv = V::splat(max), log2e = V::splat(kLog2e);
      vec sum = V::zero();
      for (size_t j = 0; j < body; j += W) {
        const vec e = V::exp2((V::load(x + j) - mv) * log2e);
        V::store(x + j, e);
        sum = sum + e;
      }
      total = V::reduce_add(sum);
      for (size_t j = body; j < count; ++j) {
        x[j] = simd::exp2_scalar((x[j] - max) * kLog2e);
        total += x[j];
      }
    }
    // Nothing finite (all -inf, or +inf/NaN scores): zeros rather than NaN.
    const float inv = total > 0.0f && total < INFINITY ? 1.0f / total : 0.0f;
    const vec iv = V::splat(inv);
    for (size_t j = 0; j < body; j += W) V::store(x + j, V::load(x + j) * iv);
    for (size_t j = body; j < count; ++j) x[j] *= inv;
  }

  // out[d0, d0 + C * W) for all count rows, the accumulators in registers.
  template <size_t C>
  static void sum_pass(const float* coeffs, const float* rows, size_t stride, size_t count,
                       size_t d0, float* out) {
    vec acc[C];
    for (size_t c = 0; c < C; ++c) acc[c] = V::zero();
    for (size_t j = 0; j < count; ++j) {
      const vec cv = V::splat(coeffs[j]);
      const float* row = rows + j * stride + d0;
      for (size_t c = 0; c < C; ++c) acc[c] = V::fma(cv, V::load(row + c * W), acc[c]);
    }
    for (size_t c = 0; c < C; ++c) V::store(out + d0 + c * W, acc[c]);
  }

  static void weighted_sum(const float* coeffs, const float* rows, size_t stride, size_t width,
                           size_t count, float* out) {
    size_t d = 0;
    for (; d + kSumVectors * W <= width; d += kSumVectors * W) {
      sum_pass<kSumVectors>(coeffs, rows, stride, count, d, out);
    }
    for (; d + W <= width; d += W) sum_pass<1>(coeffs, rows, stride, count, d, out);
    for (; d < width; ++d) {  // the last width % W features, same order of sums
      float acc = 0.0f;
      for (size_t j = 0; j < count; ++j) acc = std::fma(coeffs[j], rows[j * stride + d], acc);
      out[d] = acc;
    }
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
