// The tiled attention kernel, written once against Vec<Arch> (simd/vec_*.hpp) and
// compiled once per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an
// anonymous namespace: each ISA's translation unit keeps a private copy, so code built
// with AVX-512 flags can never be merged into another ISA's path.
//
// One task = some heads x query positions against a key range (see attention.h):
//   1. keys are packed transposed in blocks of 64, [block][dim][64] (W x W tiles turned
//      in registers, attention_transpose.hpp), so a score tile is rows x keys of
//      broadcast-query times key-vector FMAs; values are packed [key][dim]; both once
//      per task, converted from f16 if need be, and only the range some row of the task
//      can see;
//   2. rows, 64 at a time: queries are packed, scaled by scale * log2(e) (scores live in
//      the log2 domain, so softmax uses exp2) and padded to a multiple of 16 dims;
//   3. for every key block, for every tile of 4 rows that sees any key of the block:
//      scores = Q K^T over the keys some row of the tile sees, online softmax, then
//      output = output * alpha + P V, the rescale by alpha (when a row's maximum rose)
//      folded into the P V micro-kernel's accumulator loads. A block every row of the
//      tile sees whole, without bias, takes the short softmax (no masking, no NaN
//      bookkeeping unless a probe of the tile's scores is not finite); running sums are
//      kept as vectors of partial sums, added up once per row at the end;
//   4. rows are normalized once at the end (or left unnormalized as split-KV partials).
// The rows' state and the online softmax are in attention_rows.hpp.
#pragma once

#include <cstddef>
#include <cstdint>

#include "attention/attention_kernels.h"
#include "attention/attention_mask.h"
#include "attention/attention_rows.hpp"
#include "attention/attention_transpose.hpp"
#include "attention/kv_storage.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr size_t kPrefetchKeys = 16;  // streaming path: how far ahead to request K/V rows
// Packing: how far ahead to request K/V rows (strided rows of a cache that is not in
// L1/L2 stalled the packing loads: 5% of a prefill's time at n = 512 without it).
constexpr size_t kPackPrefetchKeys = 32;

template <class Arch, size_t kKeyVectors>
struct TiledAttention : AttentionRows<Arch> {
  using Base = AttentionRows<Arch>;
  // The vector types are the base's (declaring them again would shadow its members).
  using typename Base::V;
  using typename Base::vec;
  using Base::W;
  static_assert(kKeyBlock % (W * kKeyVectors) == 0, "a pass must divide the key block");
  using typename Base::Rows;
  using typename Base::Scratch;
  using Base::begin_rows;
  using Base::carve;
  using Base::finish_rows;
  using Base::rescale_output;
  using Base::softmax_row;
  using Base::softmax_row_whole;
  using Base::tile_scores_finite;

  // One K or V row (element `at` of `base`) as floats, times `scale` (int8 only; 1
  // otherwise): vector loads (converting f16 or int8) for whole vectors, then the tail
  // element by element, zeros up to the padded dim.
  static void load_row_f32(const AttentionParams& p, const void* base, size_t at, float scale,
                           size_t dim, float* out) {
    const void* row = offset_row(p, base, at);
    size_t d = 0;
    if (p.kv_type == KvType::kI8) {
      const vec scales = V::splat(scale);
      for (; d + W <= p.head_dim; d += W) V::store(out + d, load_kv_vec(p, row, d) * scales);
    } else {
      for (; d + W <= p.head_dim; d += W) V::store(out + d, load_kv_vec(p, row, d));
    }
    for (; d < p.head_dim; ++d) out[d] = kv_raw(p, base, at + d) * scale;
    for (; d < dim; ++d) out[d] = 0.0f;
  }

  // K of keys [jj0, jj0 + W) of the packed range (zeros past it) at dims [d0, d0 + W)
  // (zeros past head_dim), one vector per key.
  static void load_key_tile(const AttentionParams& p, const AttentionTask& t, const Scratch& s,
                            size_t jj0, size_t d0, vec* rows) {
    const size_t count = s.key_end - s.key_begin;
    for (size_t i = 0; i < W; ++i) {
      if (jj0 + i >= count || d0 >= p.head_dim) {
        rows[i] = V::zero();
        continue;
      }
      const size_t j = s.key_begin + jj0 + i;
      const size_t at = t.batch * p.k_strides.batch + j * p.k_strides.seq + t.kv_head * p.k_strides.head + d0;
      const float scale = kv_scale(p, p.k_scales, p.k_scale_strides, t.batch, j, t.kv_head);
      if (d0 + W <= p.head_dim) {
        rows[i] = load_kv_vec(p, offset_row(p, p.k, at), 0);
        if (p.kv_type == KvType::kI8) rows[i] = rows[i] * V::splat(scale);
        continue;
      }
      alignas(64) float lanes[W];
      for (size_t d = 0; d < W; ++d) lanes[d] = d0 + d >= p.head_dim ? 0.0f : kv_raw(p, p.k, at + d) * scale;
      rows[i] = V::load(lanes);
    }
  }

  // K transposed into [block][dim][kKeyBlock] and V as [key][dim], zero-padded: W keys
  // at a time, their K as W x W tiles turned in registers.
  static void pack_keys_values(const AttentionParams& p, const AttentionTask& t, const Scratch& s) {
    const size_t count = s.key_end - s.key_begin;
    const size_t padded = round_up(count, kKeyBlock);
    for (size_t jj0 = 0; jj0 < padded; jj0 += W) {
      for (size_t jj = jj0 + kPackPrefetchKeys; jj < jj0 + kPackPrefetchKeys + W; ++jj) {
        prefetch_key(p, t, p.k, p.k_strides, s.key_begin + jj);
        prefetch_key(p, t, p.v, p.v_strides, s.key_begin + jj);
      }
      float* kt_block = s.kt + (jj0 / kKeyBlock) * s.dim * kKeyBlock + jj0 % kKeyBlock;
      for (size_t d0 = 0; d0 < s.dim; d0 += W) {
        vec rows[W];
        load_key_tile(p, t, s, jj0, d0, rows);
        Transpose<Arch>::store_columns(rows, kt_block + d0 * kKeyBlock, kKeyBlock);
      }
      for (size_t jj = jj0; jj < jj0 + W; ++jj) {
        float* v_row = s.v + jj * s.dim;
        if (jj >= count) {
          for (size_t d = 0; d < s.dim; ++d) v_row[d] = 0.0f;
          continue;
        }
        const size_t j = s.key_begin + jj;
        load_row_f32(p, p.v, t.batch * p.v_strides.batch + j * p.v_strides.seq + t.kv_head * p.v_strides.head,
                     kv_scale(p, p.v_scales, p.v_scale_strides, t.batch, j, t.kv_head), s.dim, v_row);
      }
    }
  }

  // s[r][key0 + keys of C vectors] = q[r] . kt[:, those keys] for 4 rows.
  template <size_t C>
  static void score_pass(const Scratch& s, size_t row0, const float* kt_block, size_t key0) {
    vec acc[kRowTile][C];
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < C; ++c) acc[r][c] = V::zero();
    const float* q0 = s.q + row0 * s.dim;
    for (size_t d = 0; d < s.dim; ++d) {
      vec k[C];
      for (size_t c = 0; c < C; ++c) k[c] = V::load(kt_block + d * kKeyBlock + key0 + c * W);
      for (size_t r = 0; r < kRowTile; ++r) {
        const vec qv = V::splat(q0[r * s.dim + d]);
        for (size_t c = 0; c < C; ++c) acc[r][c] = V::fma(qv, k[c], acc[r][c]);
      }
    }
    for (size_t r = 0; r < kRowTile; ++r)
      for (size_t c = 0; c < C; ++c)
        V::store(s.s + (row0 + r) * kKeyBlock + key0 + c * W, acc[r][c]);
  }

  // Scores of the key vectors that hold keys [lo, hi) of the block (block-relative):
  // whole passes of kKeyVectors vectors, then the rest (a causal diagonal tile) in
  // passes of halving width, so that few passes have one vector (one load per FMA).
  static void scores(const Scratch& s, size_t row0, const float* kt_block, size_t lo, size_t hi) {
    size_t key0 = lo / W * W;
    const size_t end = round_up(hi, W);
    for (; key0 + kKeyVectors * W <= end; key0 += kKeyVectors * W)
      score_pass<kKeyVectors>(s, row0, kt_block, key0);
    score_rest<kKeyVectors / 2>(s, row0, kt_block, key0, end);
  }

  template <size_t C>
  static void score_rest(const Scratch& s, size_t row0, const float* kt_block, size_t key0, size_t end) {
    if constexpr (C >= 1) {
      if (key0 + C * W <= end) {
        score_pass<C>(s, row0, kt_block, key0);
        key0 += C * W;
      }
      score_rest<C / 2>(s, row0, kt_block, key0, end);
    }
  }

  // o[r][dims] = o[r][dims] * alpha[r] (when kRescale) + sum over keys [lo, hi) of
  // p[r][key] * v[key][dims], for 4 rows, C vectors of dims.
  template <size_t C, bool kRescale>
  static void value_pass(const Scratch& s, size_t row0, const float* v_block, size_t lo, size_t hi,
                         size_t dim0) {
    vec acc[kRowTile][C];
    for (size_t r = 0; r < kRowTile; ++r) {
      const vec alpha = V::splat(s.alpha[row0 + r]);
      for (size_t c = 0; c < C; ++c) {
        acc[r][c] = V::load(s.o + (row0 + r) * s.dim + dim0 + c * W);
        if (kRescale) acc[r][c] = acc[r][c] * alpha;
      }
    }
    for (size_t j = lo; j < hi; ++j) {
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

  template <bool kRescale>
  static void values_of(const Scratch& s, size_t row0, const float* v_block, size_t lo, size_t hi) {
    size_t dim0 = 0;
    for (; dim0 + 4 * W <= s.dim; dim0 += 4 * W) value_pass<4, kRescale>(s, row0, v_block, lo, hi, dim0);
    for (; dim0 < s.dim; dim0 += W) value_pass<1, kRescale>(s, row0, v_block, lo, hi, dim0);
  }

  static void values(const Scratch& s, size_t row0, const float* v_block, size_t lo, size_t hi) {
    bool rescale = false;
    for (size_t r = 0; r < kRowTile; ++r) rescale = rescale || s.alpha[row0 + r] != 1.0f;
    if (rescale) {
      values_of<true>(s, row0, v_block, lo, hi);
    } else {
      values_of<false>(s, row0, v_block, lo, hi);
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
        TileKeys keys = tile_keys(visible + row0, block_start, block_end);
        if (keys.lo >= keys.hi) continue;  // a fully masked tile is skipped, not computed
        scores(s, row0, kt_block, keys.lo, keys.hi);
        if (keys.whole && p.mask.bias == nullptr && tile_scores_finite(s, row0)) {
          for (size_t r = 0; r < kRowTile; ++r) softmax_row_whole(s, row0 + r);
        } else {
          for (size_t r = 0; r < kRowTile; ++r)
            softmax_row(p, t, rows, s, row0 + r, block_start, keys.row_lo[r], keys.row_hi[r]);
        }
        values(s, row0, v_block, keys.lo, keys.hi);
      }
    }
    finish_rows(p, t, rows, s);
  }

  // The keys of one block (block-relative) that each row of a tile sees, the range
  // any of them sees, and whether all of them see the whole block.
  struct TileKeys {
    size_t row_lo[kRowTile], row_hi[kRowTile];
    size_t lo, hi;
    bool whole;
  };

  static TileKeys tile_keys(const KeyRange* visible, size_t block_start, size_t block_end) {
    TileKeys keys;
    keys.lo = kKeyBlock;
    keys.hi = 0;
    keys.whole = block_end - block_start == kKeyBlock;
    for (size_t r = 0; r < kRowTile; ++r) {
      const size_t begin = visible[r].begin > block_start ? visible[r].begin : block_start;
      const size_t end = visible[r].end < block_end ? visible[r].end : block_end;
      const bool any = begin < end;
      keys.row_lo[r] = any ? begin - block_start : 0;
      keys.row_hi[r] = any ? end - block_start : 0;
      keys.whole = keys.whole && keys.row_lo[r] == 0 && keys.row_hi[r] == kKeyBlock;
      if (!any) continue;
      keys.lo = keys.row_lo[r] < keys.lo ? keys.row_lo[r] : keys.lo;
      keys.hi = keys.row_hi[r] > keys.hi ? keys.row_hi[r] : keys.hi;
    }
    return keys;
  }

  // ---- Streaming path: few rows (decode). K and V rows are read in place (converted
  // from f16 or int8 on the fly; an int8 key's scale multiplies its finished dot product,
  // a value's scale its softmax weight, so the inner loops stay one load and one FMA), with no packing, key by key: for each key, every row's score,
  // then every row's share of that key's value. A task may span several kv heads
  // (all heads of a decode step), so the loop walks a [seq, heads, dim] cache in
  // address order and the stream runs at memory speed. Needs head_dim to be a multiple
  // of W (the caller checks).

  // Element `at` of K or V storage, as a pointer of its type.
  static const void* offset_row(const AttentionParams& p, const void* base, size_t at) {
    return static_cast<const char*>(base) + at * kv_element_bytes(p.kv_type);
  }

  static const void* kv_row(const AttentionParams& p, const void* base, const AttentionStrides& st,
                            size_t batch, size_t kv_head, size_t j) {
    return offset_row(p, base, batch * st.batch + j * st.seq + kv_head * st.head);
  }

  // W elements from d of a stored row, unscaled (int8 as integers).
  static vec load_kv_vec(const AttentionParams& p, const void* row, size_t d) {
    if (p.kv_type == KvType::kF16) return V::load_half(static_cast<const uint16_t*>(row) + d);
    if (p.kv_type == KvType::kI8) return V::load_i8(static_cast<const int8_t*>(row) + d);
    return V::load(static_cast<const float*>(row) + d);
  }

  // Requests key j's rows of every kv head of the task ahead of use: between the loads
  // there is enough arithmetic that the hardware alone keeps too few misses in flight.
  static void prefetch_key(const AttentionParams& p, const AttentionTask& t, const void* base,
                           const AttentionStrides& st, size_t j) {
    if (j >= t.key_end) return;
    const size_t group = p.heads / p.kv_heads;
    const size_t row_bytes = p.head_dim * kv_element_bytes(p.kv_type);
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
        const size_t g = rows.head[r] / group;
        const void* k = kv_row(p, p.k, p.k_strides, t.batch, g, j);
        const float* q = s.q + r * s.dim;
        vec acc = V::zero();
        for (size_t d = 0; d < p.head_dim; d += W) acc = V::fma(V::load(q + d), load_kv_vec(p, k, d), acc);
        s.s[r * kKeyBlock + (j - block_start)] =
            V::reduce_add(acc) * kv_scale(p, p.k_scales, p.k_scale_strides, t.batch, j, g);
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
        const size_t g = rows.head[r] / group;
        const void* v = kv_row(p, p.v, p.v_strides, t.batch, g, j);
        const vec pv = V::splat(weight * kv_scale(p, p.v_scales, p.v_scale_strides, t.batch, j, g));
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
        rescale_output(s, r);
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

// y = 2^x by Vec::exp2 (kBounded: Vec::exp2_bounded), vectors then the tail lane by lane.
template <class Arch, bool kBounded>
void exp2_array(const float* x, float* y, size_t count) {
  using V = simd::Vec<Arch>;
  size_t i = 0;
  for (; i + V::width <= count; i += V::width) {
    const typename V::type v = V::load(x + i);
    V::store(y + i, kBounded ? V::exp2_bounded(v) : V::exp2(v));
  }
  if (i == count) return;
  alignas(64) float lanes[V::width] = {};  // the tail through one vector, so it takes the same path
  for (size_t k = i; k < count; ++k) lanes[k - i] = x[k];
  const typename V::type v = V::load(lanes);
  V::store(lanes, kBounded ? V::exp2_bounded(v) : V::exp2(v));
  for (size_t k = i; k < count; ++k) y[k] = lanes[k - i];
}

}  // namespace
}  // namespace kernels
}  // namespace focal
