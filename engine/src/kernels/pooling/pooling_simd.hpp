// The pooling kernels, written once against Vec<Arch> (simd/vec_*.hpp) and compiled
// once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an anonymous
// namespace: each ISA's translation unit keeps a private copy, so code built with
// AVX-512 flags can never be merged into another ISA's path.
//
// Mean pooling keeps kColumns vectors of column sums in registers and walks the
// positions in order, so every column is summed in the reference's order: the results
// are bitwise the reference's (one add per position, then one correctly rounded
// division: Vec::div, as xsimd's NEON operator/ is not).
#pragma once

#include <cstddef>
#include <cstring>

#include "pooling/pooling_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

template <class Arch>
struct Pooling {
  FOCAL_VEC_TYPES(Arch)
  static constexpr size_t kColumns = 4;

  static void mean_pool(const PoolParams& p) {
    for (size_t b = 0; b < p.batch; ++b) {
      const size_t length = p.lengths != nullptr ? static_cast<size_t>(p.lengths[b]) : p.seq;
      const float* x = p.x + b * p.seq * p.dim;
      float* out = p.out + b * p.dim;
      if (length == 0) {
        std::memset(out, 0, p.dim * sizeof(float));
        continue;
      }
      const vec n = V::splat(static_cast<float>(length));
      size_t i = 0;
      for (; i + kColumns * W <= p.dim; i += kColumns * W) {
        vec s0 = V::zero(), s1 = V::zero(), s2 = V::zero(), s3 = V::zero();
        for (size_t s = 0; s < length; ++s) {
          const float* row = x + s * p.dim + i;
          s0 = s0 + V::load(row);
          s1 = s1 + V::load(row + W);
          s2 = s2 + V::load(row + 2 * W);
          s3 = s3 + V::load(row + 3 * W);
        }
        V::store(out + i, V::div(s0, n));
        V::store(out + i + W, V::div(s1, n));
        V::store(out + i + 2 * W, V::div(s2, n));
        V::store(out + i + 3 * W, V::div(s3, n));
      }
      for (; i + W <= p.dim; i += W) {
        vec s0 = V::zero();
        for (size_t s = 0; s < length; ++s) s0 = s0 + V::load(x + s * p.dim + i);
        V::store(out + i, V::div(s0, n));
      }
      if (i < p.dim) {
        const size_t t = p.dim - i;
        vec s0 = V::zero();
        for (size_t s = 0; s < length; ++s) s0 = s0 + V::load_partial(x + s * p.dim + i, t, 0.0f);
        V::store_partial(out + i, t, V::div(s0, n));
      }
    }
  }

  static void cls_pool(const PoolParams& p) {
    for (size_t b = 0; b < p.batch; ++b) {
      std::memcpy(p.out + b * p.dim, p.x + b * p.seq * p.dim, p.dim * sizeof(float));
    }
  }

  static constexpr PoolingKernelTable table(const char* isa) { return {isa, mean_pool, cls_pool}; }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
