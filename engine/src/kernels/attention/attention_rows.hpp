// The per-row state of the tiled attention kernel (attention_simd.hpp) and the online
// softmax that updates it, written once against Vec<Arch> like the kernel itself: the
// task's scratch layout, packed queries, running max m (log2 domain), running sums l (W
// partial sums per row, added up once at the end) and outputs o. A row's output is
// rescaled by alpha = 2^(m_old - m_new) when m is raised (only when a block's scores
// exceed it by more than kMaxSlack: m is a bound near the maximum); the softmax only
// records alpha, and the tiled path folds it into its P V micro-kernel's accumulator
// loads (the streaming path calls rescale_output).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "attention/attention_kernels.h"
#include "attention/attention_mask.h"
#include "simd/math_constants.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr size_t kRowTile = 4;  // rows of a register tile, both micro-kernels
// How far (log2 domain) a block's largest score may exceed a row's running max before
// the max is raised and the row's output rescaled: probabilities stay <= 2^8.
constexpr float kMaxSlack = 8.0f;

template <class Arch>
struct AttentionRows {
  FOCAL_VEC_TYPES(Arch)

  struct Scratch {
    size_t dim;   // padded head_dim
    size_t rows;  // task rows rounded up to kRowTile
    float* q;     // [rows][dim]
    float* kt;    // [blocks][dim][kKeyBlock]
    float* v;     // [blocks * kKeyBlock][dim]
    float* s;     // [rows][kKeyBlock]
    float* o;     // [rows][dim]
    float* m;     // [rows] running max, log2 domain
    float* alpha;  // [rows] factor for the output before this block's P V: 2^(m_old - m)
    float* l;     // [rows][kDimAlign] running sum, as W partial sums
    size_t key_begin, key_end;  // the packed key range
  };

  // The rows of the current chunk: query head and position of each.
  struct Rows {
    size_t count;
    size_t first;  // index of the chunk's first row within the task
    uint32_t head[kMaxTaskRows];
    uint32_t query[kMaxTaskRows];
  };

  // Lays the scratch out for a task of `task_rows` rows and the given keys; fits in
  // attention_task_scratch_floats() for any task of the same problem.
  static Scratch carve(const AttentionParams& p, size_t task_rows, size_t key_begin,
                       size_t key_end, float* base) {
    Scratch s;
    s.dim = round_up(p.head_dim, kDimAlign);
    s.rows = 0;
    s.key_begin = key_begin;
    s.key_end = key_end;
    const size_t rows = round_up(task_row_capacity(task_rows), kRowTile);
    const size_t keys = round_up(key_end - key_begin, kKeyBlock);
    s.q = base;
    s.o = s.q + rows * s.dim;
    s.kt = s.o + rows * s.dim;
    s.v = s.kt + keys * s.dim;
    s.s = s.v + keys * s.dim;
    s.m = s.s + rows * kKeyBlock;
    s.alpha = s.m + rows;
    s.l = s.alpha + rows;
    return s;
  }

  static void pack_queries(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                           const Scratch& s) {
    const float factor = effective_scale(p) * kLog2e;
    for (size_t r = 0; r < s.rows; ++r) {
      float* dst = s.q + r * s.dim;
      size_t d = 0;
      if (r < rows.count) {
        const float* src = p.q + t.batch * p.q_strides.batch + rows.query[r] * p.q_strides.seq +
                           rows.head[r] * p.q_strides.head;
        for (; d < p.head_dim; ++d) dst[d] = src[d] * factor;
      }
      for (; d < s.dim; ++d) dst[d] = 0.0f;
    }
  }

  // Online softmax for row r over one block of scores (log2 domain). Keys outside
  // [lo, hi) (block-relative) are masked. Leaves probabilities in s.s and the factor for
  // the row's output in s.alpha.
  static void softmax_row(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          const Scratch& s, size_t r, size_t block_start, size_t lo, size_t hi) {
    float* row = s.s + r * kKeyBlock;
    if (p.mask.bias != nullptr && r < rows.count) {
      const float* bias = p.mask.bias + t.batch * p.mask.bias_batch_stride +
                          rows.head[r] * p.mask.bias_head_stride +
                          static_cast<ptrdiff_t>(rows.query[r]) * p.mask.bias_q_stride + block_start;
      for (size_t j = lo; j < hi; ++j) row[j] += bias[j] * kLog2e;
    }
    for (size_t j = 0; j < lo; ++j) row[j] = -INFINITY;
    for (size_t j = hi; j < kKeyBlock; ++j) row[j] = -INFINITY;
    vec block_max = V::splat(-INFINITY);
    vec nan_lanes = V::zero();  // max and exp2 both drop NaN; this keeps it
    for (size_t j = 0; j < kKeyBlock; j += W) {
      const vec x = V::load(row + j);
      block_max = V::max(block_max, x);
      nan_lanes = V::keep_nan(nan_lanes, x);
    }
    const float m_new = std::fmax(s.m[r], V::reduce_max(block_max));
    const float nan_sum = V::reduce_add(nan_lanes);
    if (nan_sum != nan_sum || m_new == INFINITY) {
      // A NaN or +inf score (NaN or Inf inputs): the row comes out NaN, as in PyTorch. A
      // running max of +inf with a NaN sum keeps it NaN through every later block, the
      // finish and the split-KV merge.
      s.m[r] = INFINITY;
      s.alpha[r] = 1.0f;
      V::store(s.l + r * kDimAlign, V::splat(NAN));
      for (size_t j = 0; j < kKeyBlock; ++j) row[j] = NAN;
      return;
    }
    s.alpha[r] = 1.0f;
    if (m_new == -INFINITY) {  // nothing visible yet (or bias -inf): contributes nothing
      for (size_t j = 0; j < kKeyBlock; ++j) row[j] = 0.0f;
      return;
    }
    exponentiate_row(s, r, m_new);
  }

  // The common end of both softmax forms, for a block whose largest score is block_max
  // (finite): rescale factor, row -> 2^(row - m), running sums. The running max m is
  // raised only when block_max exceeds it by more than kMaxSlack, so that most blocks
  // leave the output as it is (alpha = 1: no rescale in the P V micro-kernel, no exp2
  // of the factor); probabilities are then up to 2^kMaxSlack instead of 1, which sums of
  // any length this kernel handles (and outputs) hold far from overflow, and the
  // normalization at the end divides out either way.
  static void exponentiate_row(const Scratch& s, size_t r, float block_max) {
    float* row = s.s + r * kKeyBlock;
    vec sum = V::load(s.l + r * kDimAlign);
    if (block_max > s.m[r] + kMaxSlack) {
      s.alpha[r] = s.m[r] == -INFINITY ? 0.0f : simd::exp2_scalar(s.m[r] - block_max);
      sum = sum * V::splat(s.alpha[r]);
      s.m[r] = block_max;
    }
    const vec mv = V::splat(s.m[r]);
    for (size_t j = 0; j < kKeyBlock; j += W) {
      const vec e = V::exp2_bounded(V::load(row + j) - mv);  // arguments <= kMaxSlack
      V::store(row + j, e);
      sum = sum + e;
    }
    V::store(s.l + r * kDimAlign, sum);
  }

  // Online softmax for a row that sees the whole block, without bias, and whose scores
  // are known to be finite: no masking and no NaN bookkeeping (and so no call to fmax,
  // which g++ makes a library call that spills every vector register around it).
  static void softmax_row_whole(const Scratch& s, size_t r) {
    const float* row = s.s + r * kKeyBlock;
    vec block_max = V::load(row);
    for (size_t j = W; j < kKeyBlock; j += W) block_max = V::max(block_max, V::load(row + j));
    s.alpha[r] = 1.0f;
    exponentiate_row(s, r, V::reduce_max(block_max));
  }

  // True when every score of the tile is finite (their sum is: a NaN or an infinity
  // anywhere makes it NaN or infinite; so may a sum beyond 3e38, which then only takes
  // the careful path).
  static bool tile_scores_finite(const Scratch& s, size_t row0) {
    vec sum = V::zero();
    const float* tile = s.s + row0 * kKeyBlock;
    for (size_t j = 0; j < kRowTile * kKeyBlock; j += W) sum = sum + V::load(tile + j);
    const float total = V::reduce_add(sum);
    return total - total == 0.0f;
  }

  static void finish_rows(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          const Scratch& s) {
    for (size_t r = 0; r < rows.count; ++r) {
      const float* o = s.o + r * s.dim;
      if (t.partial != nullptr) {
        float* dst = t.partial + (rows.first + r) * (p.head_dim + 2);
        dst[0] = s.m[r];
        dst[1] = V::reduce_add(V::load(s.l + r * kDimAlign));
        for (size_t d = 0; d < p.head_dim; ++d) dst[2 + d] = o[d];
        continue;
      }
      float* out = p.out + t.batch * p.out_strides.batch + rows.query[r] * p.out_strides.seq +
                   rows.head[r] * p.out_strides.head;
      const float l = V::reduce_add(V::load(s.l + r * kDimAlign));
      const float inv = l > 0.0f ? 1.0f / l : 0.0f;
      for (size_t d = 0; d < p.head_dim; ++d) out[d] = o[d] * inv;
    }
  }

  // Packs the rows' queries, finds the keys each sees, and resets their running max,
  // sum and output (padding rows up to the row tile see nothing).
  static void begin_rows(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                         Scratch& s, KeyRange* visible) {
    s.rows = round_up(rows.count, kRowTile);
    pack_queries(p, t, rows, s);
    for (size_t r = 0; r < s.rows; ++r) {
      visible[r] = r < rows.count ? visible_keys(p, t.batch, rows.query[r]) : KeyRange{0, 0};
      s.m[r] = -INFINITY;
      s.alpha[r] = 1.0f;
      V::store(s.l + r * kDimAlign, V::zero());
      for (size_t d = 0; d < s.dim; ++d) s.o[r * s.dim + d] = 0.0f;
    }
  }

  static void rescale_output(const Scratch& s, size_t r) {
    if (s.alpha[r] == 1.0f) return;
    float* o = s.o + r * s.dim;
    const vec alpha = V::splat(s.alpha[r]);
    for (size_t d = 0; d < s.dim; d += W) V::store(o + d, V::load(o + d) * alpha);
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
