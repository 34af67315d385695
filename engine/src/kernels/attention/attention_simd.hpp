// The tiled attention kernel, written once against Vec<Arch> (simd/vec_*.hpp) and
// compiled once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an
// anonymous namespace: each ISA's translation unit keeps a private copy, so code built
// with AVX-512 flags can never be merged into another ISA's path.
//
// One task = some heads x query positions against a key range (see attention.h):
//   1. keys are packed transposed in blocks of 64, [block][dim][64], so a score tile is
//      rows x keys of broadcast-query times key-vector FMAs; values are packed [key][dim];
//      both once per task, converted from f16 if need be, and only the range some row
//      of the task can see;
//   2. rows, 64 at a time: queries are packed, scaled by scale * log2(e) (scores live in
//      the log2 domain, so softmax uses exp2) and padded to a multiple of 16 dims;
//   3. for every key block, for every tile of 4 rows that sees any key of the block:
//      scores = Q K^T, mask and bias on the block edges, online softmax (the output is
//      rescaled only when the row maximum rises), then output += P V;
//   4. rows are normalized once at the end (or left unnormalized as split-KV partials).
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

constexpr size_t kRowTile = 4;
constexpr size_t kPrefetchKeys = 16;  // streaming path: how far ahead to request K/V rows

template <class Arch, size_t kKeyVectors>
struct TiledAttention {
  FOCAL_VEC_TYPES(Arch)
  static_assert(kKeyBlock % (W * kKeyVectors) == 0, "a pass must divide the key block");

  struct Scratch {
    size_t dim;   // padded head_dim
    size_t rows;  // task rows rounded up to kRowTile
    float* q;     // [rows][dim]
    float* kt;    // [blocks][dim][kKeyBlock]
    float* v;     // [blocks * kKeyBlock][dim]
    float* s;     // [rows][kKeyBlock]
    float* o;     // [rows][dim]
    float* m;     // [rows] running max, log2 domain
    float* l;     // [rows] running sum
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
    s.l = s.m + rows;
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

  // One K or V row as floats: vector loads (converting f16) for whole vectors, then
  // the tail element by element, zeros up to the padded dim.
  static void load_row_f32(const AttentionParams& p, const void* base, size_t at, size_t dim,
                           float* out) {
    size_t d = 0;
    if (p.kv_type == KvType::kF16) {
      const uint16_t* src = static_cast<const uint16_t*>(base) + at;
      for (; d + W <= p.head_dim; d += W) V::store(out + d, V::load_half(src + d));
      for (; d < p.head_dim; ++d) out[d] = simd::half_to_float(src[d]);
    } else {
      const float* src = static_cast<const float*>(base) + at;
      for (; d + W <= p.head_dim; d += W) V::store(out + d, V::load(src + d));
      for (; d < p.head_dim; ++d) out[d] = src[d];
    }
    for (; d < dim; ++d) out[d] = 0.0f;
  }

  // K transposed into [block][dim][kKeyBlock] and V as [key][dim], zero-padded.
  static void pack_keys_values(const AttentionParams& p, const AttentionTask& t, const Scratch& s) {
    const size_t count = s.key_end - s.key_begin;
    const size_t padded = round_up(count, kKeyBlock);
    alignas(64) float k_row[kMaxAttentionHeadDim + kDimAlign];
    for (size_t jj = 0; jj < padded; ++jj) {
      float* kt_block = s.kt + (jj / kKeyBlock) * s.dim * kKeyBlock;
      const size_t column = jj % kKeyBlock;
      float* v_row = s.v + jj * s.dim;
      if (jj < count) {
        const size_t j = s.key_begin + jj;
        load_row_f32(p, p.k, t.batch * p.k_strides.batch + j * p.k_strides.seq + t.kv_head * p.k_strides.head,
                     s.dim, k_row);
        load_row_f32(p, p.v, t.batch * p.v_strides.batch + j * p.v_strides.seq + t.kv_head * p.v_strides.head,
                     s.dim, v_row);
      } else {
        for (size_t d = 0; d < s.dim; ++d) k_row[d] = v_row[d] = 0.0f;
      }
      for (size_t d = 0; d < s.dim; ++d) kt_block[d * kKeyBlock + column] = k_row[d];
    }
  }

  // s[r][key pass] = q[r] . kt[:, keys] for 4 rows and kKeyVectors * W keys.
  static void score_pass(const Scratch& s, size_t row0, const float* kt_block, size_t key0) {
    vec acc[kRowTile][kKeyVectors];
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < kKeyVectors; ++c) acc[r][c] = V::zero();
    const float* q0 = s.q + row0 * s.dim;
    for (size_t d = 0; d < s.dim; ++d) {
      vec k[kKeyVectors];
      for (size_t c = 0; c < kKeyVectors; ++c) k[c] = V::load(kt_block + d * kKeyBlock + key0 + c * W);
      for (size_t r = 0; r < kRowTile; ++r) {
        const vec qv = V::splat(q0[r * s.dim + d]);
        for (size_t c = 0; c < kKeyVectors; ++c) acc[r][c] = V::fma(qv, k[c], acc[r][c]);
      }
    }
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < kKeyVectors; ++c)
        V::store(s.s + (row0 + r) * kKeyBlock + key0 + c * W, acc[r][c]);
  }

  // o[r][dims] += sum over keys of p[r][key] * v[key][dims], for 4 rows, C vectors of dims.
  template <size_t C>
  static void value_pass(const Scratch& s, size_t row0, const float* v_block, size_t keys, size_t dim0) {
    vec acc[kRowTile][C];
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < C; ++c) acc[r][c] = V::load(s.o + (row0 + r) * s.dim + dim0 + c * W);
    for (size_t j = 0; j < keys; ++j) {
      vec vv[C];
      for (size_t c = 0; c < C; ++c) vv[c] = V::load(v_block + j * s.dim + dim0 + c * W);
      for (size_t r = 0; r < kRowTile; ++r) {
        const vec pv = V::splat(s.s[(row0 + r) * kKeyBlock + j]);
        for (size_t c = 0; c < C; ++c) acc[r][c] = V::fma(pv, vv[c], acc[r][c]);
      }
    }
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < C; ++c) V::store(s.o + (row0 + r) * s.dim + dim0 + c * W, acc[r][c]);
  }

  static void values(const Scratch& s, size_t row0, const float* v_block, size_t keys) {
    size_t dim0 = 0;
    for (; dim0 + 4 * W <= s.dim; dim0 += 4 * W) value_pass<4>(s, row0, v_block, keys, dim0);
    for (; dim0 < s.dim; dim0 += W) value_pass<1>(s, row0, v_block, keys, dim0);
  }

  // Online softmax for row r over one block of scores (log2 domain). Keys outside
  // [lo, hi) (block-relative) are masked. Leaves probabilities in s.s.
  static void softmax_row(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          const Scratch& s, size_t r, size_t block_start, size_t lo, size_t hi) {
    float* row = s.s + r * kKeyBlock;
    if (p.mask.bias != nullptr && r < rows.count) {
      const float* bias = p.mask.bias + t.batch * p.mask.bias_batch_stride +
                          rows.head[r] * p.mask.bias_head_stride +
                          rows.query[r] * p.mask.bias_q_stride + block_start;
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
      s.l[r] = NAN;
      for (size_t j = 0; j < kKeyBlock; ++j) row[j] = NAN;
      return;
    }
    if (m_new == -INFINITY) {  // nothing visible yet (or bias -inf): contributes nothing
      for (size_t j = 0; j < kKeyBlock; ++j) row[j] = 0.0f;
      return;
    }
    if (m_new > s.m[r]) {
      const float alpha = simd::exp2_scalar(s.m[r] - m_new);  // 0 on the first block
      s.l[r] *= alpha;
      float* o = s.o + r * s.dim;
      const vec av = V::splat(alpha);
      for (size_t d = 0; d < s.dim; d += W) V::store(o + d, V::load(o + d) * av);
      s.m[r] = m_new;
    }
    const vec mv = V::splat(m_new);
    vec sum = V::zero();
    for (size_t j = 0; j < kKeyBlock; j += W) {
      const vec e = V::exp2(V::load(row + j) - mv);
      V::store(row + j, e);
      sum = sum + e;
    }
    s.l[r] += V::reduce_add(sum);
  }

  static void finish_rows(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          const Scratch& s) {
    for (size_t r = 0; r < rows.count; ++r) {
      const float* o = s.o + r * s.dim;
      if (t.partial != nullptr) {
        float* dst = t.partial + (rows.first + r) * (p.head_dim + 2);
        dst[0] = s.m[r];
        dst[1] = s.l[r];
        for (size_t d = 0; d < p.head_dim; ++d) dst[2 + d] = o[d];
        continue;
      }
      float* out = p.out + t.batch * p.out_strides.batch + rows.query[r] * p.out_strides.seq +
                   rows.head[r] * p.out_strides.head;
      const float inv = s.l[r] > 0.0f ? 1.0f / s.l[r] : 0.0f;
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
      s.l[r] = 0.0f;
      for (size_t d = 0; d < s.dim; ++d) s.o[r * s.dim + d] = 0.0f;
    }
  }

  // Attends one chunk of up to kMaxTaskRows rows to the packed keys.
  static void attend_rows(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          Scratch& s) {
    KeyRange visible[kMaxTaskRows];
    begin_rows(p, t, rows, s, visible);
    for (size_t block_start = s.key_begin; block_start < s.key_end; block_start += kKeyBlock) {
      const size_t block = (block_start - s.key_begin) / kKeyBlock;
      const size_t block_end = block_start + kKeyBlock < s.key_end ? block_start + kKeyBlock : s.key_end;
      const float* kt_block = s.kt + block * s.dim * kKeyBlock;
      const float* v_block = s.v + block * kKeyBlock * s.dim;
      for (size_t row0 = 0; row0 < s.rows; row0 += kRowTile) {
        size_t lo[kRowTile], hi[kRowTile];
        bool any = false;
        for (size_t r = 0; r < kRowTile; ++r) {
          const KeyRange& k = visible[row0 + r];
          const size_t begin = k.begin > block_start ? k.begin : block_start;
          const size_t end = k.end < block_end ? k.end : block_end;
          lo[r] = begin < end ? begin - block_start : 0;
          hi[r] = begin < end ? end - block_start : 0;
          any = any || begin < end;
        }
        if (!any) continue;  // a fully masked tile is skipped, not computed
        for (size_t key0 = 0; key0 < kKeyBlock; key0 += kKeyVectors * W) score_pass(s, row0, kt_block, key0);
        for (size_t r = 0; r < kRowTile; ++r) softmax_row(p, t, rows, s, row0 + r, block_start, lo[r], hi[r]);
        values(s, row0, v_block, block_end - block_start);
      }
    }
    finish_rows(p, t, rows, s);
  }

  // ---- Streaming path: few rows (decode). K and V rows are read in place (converted
  // from f16 on the fly), with no packing, key by key: for each key, every row's score,
  // then every row's share of that key's value. A task may span several kv heads
  // (all heads of a decode step), so the loop walks a [seq, heads, dim] cache in
  // address order and the stream runs at memory speed. Needs head_dim to be a multiple
  // of W (the caller checks).

  static const void* kv_row(const AttentionParams& p, const void* base, const AttentionStrides& st,
                            size_t batch, size_t kv_head, size_t j) {
    const size_t at = batch * st.batch + j * st.seq + kv_head * st.head;
    if (p.kv_type == KvType::kF16) return static_cast<const uint16_t*>(base) + at;
    return static_cast<const float*>(base) + at;
  }

  static vec load_kv_vec(const AttentionParams& p, const void* row, size_t d) {
    if (p.kv_type == KvType::kF16) return V::load_half(static_cast<const uint16_t*>(row) + d);
    return V::load(static_cast<const float*>(row) + d);
  }

  // Requests key j's rows of every kv head of the task ahead of use: between the loads
  // there is enough arithmetic that the hardware alone keeps too few misses in flight.
  static void prefetch_key(const AttentionParams& p, const AttentionTask& t, const void* base,
                           const AttentionStrides& st, size_t j) {
    if (j >= t.key_end) return;
    const size_t group = p.heads / p.kv_heads;
    const size_t row_bytes = p.head_dim * (p.kv_type == KvType::kF16 ? 2 : 4);
    for (size_t g = t.head_begin / group; g <= (t.head_end - 1) / group; ++g) {
      const char* row = static_cast<const char*>(kv_row(p, base, st, t.batch, g, j));
      for (size_t offset = 0; offset < row_bytes; offset += 64) __builtin_prefetch(row + offset);
    }
  }

  static void stream_scores(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                            const Scratch& s, size_t block_start, size_t block_end) {
    const size_t group = p.heads / p.kv_heads;
    for (size_t j = block_start; j < block_end; ++j) {
      prefetch_key(p, t, p.k, p.k_strides, j + kPrefetchKeys);
      for (size_t r = 0; r < rows.count; ++r) {
        const void* k = kv_row(p, p.k, p.k_strides, t.batch, rows.head[r] / group, j);
        const float* q = s.q + r * s.dim;
        vec acc = V::zero();
        for (size_t d = 0; d < p.head_dim; d += W) acc = V::fma(V::load(q + d), load_kv_vec(p, k, d), acc);
        s.s[r * kKeyBlock + (j - block_start)] = V::reduce_add(acc);
      }
    }
  }

  static void stream_values(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                            const Scratch& s, size_t block_start, size_t block_end) {
    const size_t group = p.heads / p.kv_heads;
    for (size_t j = block_start; j < block_end; ++j) {
      prefetch_key(p, t, p.v, p.v_strides, j + kPrefetchKeys);
      for (size_t r = 0; r < rows.count; ++r) {
        const float weight = s.s[r * kKeyBlock + (j - block_start)];
        if (weight == 0.0f) continue;  // masked or underflowed: adds nothing
        const void* v = kv_row(p, p.v, p.v_strides, t.batch, rows.head[r] / group, j);
        const vec pv = V::splat(weight);
        float* o = s.o + r * s.dim;
        for (size_t d = 0; d < p.head_dim; d += W) V::store(o + d, V::fma(pv, load_kv_vec(p, v, d), V::load(o + d)));
      }
    }
  }

  static void stream_rows(const AttentionParams& p, const AttentionTask& t, const Rows& rows,
                          Scratch& s) {
    KeyRange visible[kMaxTaskRows];
    begin_rows(p, t, rows, s, visible);
    for (size_t block_start = s.key_begin; block_start < s.key_end; block_start += kKeyBlock) {
      const size_t block_end = block_start + kKeyBlock < s.key_end ? block_start + kKeyBlock : s.key_end;
      stream_scores(p, t, rows, s, block_start, block_end);
      for (size_t r = 0; r < rows.count; ++r) {
        const size_t begin = visible[r].begin > block_start ? visible[r].begin : block_start;
        const size_t end = visible[r].end < block_end ? visible[r].end : block_end;
        const bool any = begin < end;
        softmax_row(p, t, rows, s, r, block_start, any ? begin - block_start : 0,
                    any ? end - block_start : 0);
      }
      stream_values(p, t, rows, s, block_start, block_end);
    }
    finish_rows(p, t, rows, s);
  }

  // The keys any row of the task can see, within the task's key range.
  static KeyRange task_keys(const AttentionParams& p, const AttentionTask& t) {
    size_t begin = t.key_end, end = t.key_begin;
    for (size_t i = t.query_begin; i < t.query_end; ++i) {
      const KeyRange k = visible_keys(p, t.batch, i);
      const size_t b = k.begin > t.key_begin ? k.begin : t.key_begin;
      const size_t e = k.end < t.key_end ? k.end : t.key_end;
      if (b >= e) continue;
      begin = b < begin ? b : begin;
      end = e > end ? e : end;
    }
    return begin < end ? KeyRange{begin, end} : KeyRange{t.key_begin, t.key_begin};
  }

  static void run(const AttentionParams& p, const AttentionTask& t, float* scratch) {
    const KeyRange keys = task_keys(p, t);
    const size_t queries = t.query_end - t.query_begin;
    const size_t total = (t.head_end - t.head_begin) * queries;
    Scratch s = carve(p, total, keys.begin, keys.end, scratch);
    // Few rows: streaming K and V beats packing them (decode is bound by memory). A
    // task over several kv heads is only ever made for the streaming path.
    const bool stream = total <= kStreamMaxRows && p.head_dim % W == 0;
    if (!stream) pack_keys_values(p, t, s);
    Rows rows;
    for (rows.first = 0; rows.first < total; rows.first += kMaxTaskRows) {
      rows.count = total - rows.first < kMaxTaskRows ? total - rows.first : kMaxTaskRows;
      for (size_t r = 0; r < rows.count; ++r) {
        const size_t k = rows.first + r;
        rows.head[r] = static_cast<uint32_t>(t.head_begin + k / queries);
        rows.query[r] = static_cast<uint32_t>(t.query_begin + k % queries);
      }
      if (stream) {
        stream_rows(p, t, rows, s);
      } else {
        attend_rows(p, t, rows, s);
      }
    }
  }
};

template <class Arch>
void exp2_array(const float* x, float* y, size_t count) {
  using V = simd::Vec<Arch>;
  size_t i = 0;
  for (; i + V::width <= count; i += V::width) V::store(y + i, V::exp2(V::load(x + i)));
  for (; i < count; ++i) y[i] = simd::exp2_scalar(x[i]);
}

}  // namespace
}  // namespace kernels
}  // namespace focal
