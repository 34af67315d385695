// Running attention on a kernel set: cut the problem into tasks (prefill: blocks of
// query rows per kv-head group; decode: chunks of keys, merged by log-sum-exp, and, on
// several workers, the kv heads of a chunk cut into one contiguous range per worker),
// run them over the caller's workers, merge split-KV partials, write requested weights.
#include "dispatch/attention_dispatch.h"

#include <cmath>
#include <cstring>

#include "attention/attention_mask.h"
#include "attention/kv_storage.h"
#include "dispatch/parallel_threshold.h"
#include "simd/vec_scalar.hpp"
#include "support/saturating_size.h"
#include "support/trusted_call.h"

namespace focal {
namespace {

using kernels::AttentionKernelTable;
using kernels::AttentionTask;

// Decode (few queries per kv head): keys are split into chunks of this many, each a
// task, merged by log-sum-exp. Fixed, so results do not depend on the worker count.
constexpr size_t kDecodeMaxQueries = 16;
// Prefill: each task packs K/V once and attends a block of query positions of every
// head of one grouped-query group. Packing reads K and V from memory, so blocks are as
// large as possible: one per (batch, kv head), split only until there are at least
// kPrefillMinTasks tasks to share among workers (a constant, not the worker count, so
// the split and the results do not depend on threads).
constexpr size_t kPrefillMinTasks = 4;

size_t prefill_query_block(const AttentionParams& p) {
  const size_t groups = p.batch * p.kv_heads;
  const size_t blocks = groups >= kPrefillMinTasks ? 1 : (kPrefillMinTasks + groups - 1) / groups;
  const size_t block = (p.q_len + blocks - 1) / blocks;
  return block < 64 ? 64 : block;  // at least one chunk of rows
}

bool is_decode(const AttentionParams& p) { return p.q_len <= kDecodeMaxQueries; }

// Decode whose rows (every head x query) fit one streaming task: one task per chunk
// covers all kv heads and reads the cache in address order.
bool decode_all_heads(const AttentionParams& p) {
  return is_decode(p) && p.heads * p.q_len <= kernels::kStreamMaxRows &&
         p.head_dim % kernels::kDimAlign == 0;
}

size_t chunks_per_row(const AttentionParams& p) {
  return is_decode(p) ? (p.kv_len + kAttentionDecodeChunk - 1) / kAttentionDecodeChunk : 1;
}

size_t max_task_keys(const AttentionParams& p) {
  return is_decode(p) && p.kv_len > kAttentionDecodeChunk ? kAttentionDecodeChunk : p.kv_len;
}

size_t max_task_rows(const AttentionParams& p) {
  if (decode_all_heads(p)) return p.heads * p.q_len;
  const size_t group = p.heads / p.kv_heads;
  return group * (is_decode(p) ? p.q_len : prefill_query_block(p));
}

size_t scratch_bytes_per_worker(const AttentionParams& p) {
  const size_t floats =
      kernels::attention_task_scratch_floats(p.head_dim, max_task_rows(p), max_task_keys(p));
  return kernels::round_up(floats * sizeof(float), 64);
}

// Split-KV partials: for every (batch, head, query, chunk), head_dim + 2 floats.
size_t partial_bytes(const AttentionParams& p) {
  if (chunks_per_row(p) <= 1) return 0;
  return kernels::round_up(
      p.batch * p.heads * p.q_len * chunks_per_row(p) * (p.head_dim + 2) * sizeof(float), 64);
}

struct Plan {
  const AttentionParams* params;
  const AttentionKernelTable* kernels;
  size_t group;        // query heads per kv head
  size_t query_block;  // prefill: query positions per task
  size_t query_blocks;
  size_t chunks;     // decode: key chunks per (batch, kv head)
  // Decode over all heads (decode_all_heads): the kv heads of each chunk are cut into
  // this many contiguous ranges, one task each, so each worker streams its own bytes of
  // every K and V row (whole kv heads; only reads can share a cache line, at the ends of
  // f16 or int8 rows) and writes its own heads' outputs (head_dim floats, a multiple of
  // 64 bytes on the streaming path). Every row (head, query) is computed on its own by
  // the streaming path, so the cut changes no bit.
  size_t head_parts;
  float* partials;   // null when not split
  uint8_t* scratch;  // per worker, scratch_stride bytes each
  size_t scratch_stride;
};

size_t task_count(const Plan& plan) {
  const AttentionParams& p = *plan.params;
  if (decode_all_heads(p)) return p.batch * plan.chunks * plan.head_parts;
  return p.batch * p.kv_heads * (is_decode(p) ? plan.chunks : plan.query_blocks);
}

// Task index -> which rows and keys. Decode: (batch, chunk) over all heads, or
// (batch, chunk, kv head) with the kv head fastest so consecutive tasks read
// neighbouring bytes of a [seq, heads, dim] cache. Prefill: (batch, kv head, query block).
AttentionTask make_task(const Plan& plan, size_t index) {
  const AttentionParams& p = *plan.params;
  AttentionTask t;
  t.partial = nullptr;
  if (is_decode(p)) {
    const size_t kv_tasks = decode_all_heads(p) ? plan.head_parts : p.kv_heads;
    t.kv_head = index % kv_tasks;
    const size_t chunk = (index / kv_tasks) % plan.chunks;
    t.batch = index / kv_tasks / plan.chunks;
    if (decode_all_heads(p)) {  // t.kv_head: the part
      t.head_begin = p.kv_heads * t.kv_head / plan.head_parts * plan.group;
      t.head_end = p.kv_heads * (t.kv_head + 1) / plan.head_parts * plan.group;
    } else {
      t.head_begin = t.kv_head * plan.group;
      t.head_end = t.head_begin + plan.group;
    }
    t.query_begin = 0;
    t.query_end = p.q_len;
    t.key_begin = chunk * kAttentionDecodeChunk;
    t.key_end = t.key_begin + kAttentionDecodeChunk < p.kv_len ? t.key_begin + kAttentionDecodeChunk
                                                               : p.kv_len;
    if (plan.partials != nullptr) {
      // Partials are [batch][chunk][head][query][head_dim + 2]; a task's rows are contiguous.
      t.partial = plan.partials + ((t.batch * plan.chunks + chunk) * p.heads + t.head_begin) *
                                      p.q_len * (p.head_dim + 2);
    }
    return t;
  }
  const size_t block = index % plan.query_blocks;
  t.kv_head = (index / plan.query_blocks) % p.kv_heads;
  t.batch = index / plan.query_blocks / p.kv_heads;
  t.head_begin = t.kv_head * plan.group;
  t.head_end = t.head_begin + plan.group;
  t.query_begin = block * plan.query_block;
  t.query_end =
      t.query_begin + plan.query_block < p.q_len ? t.query_begin + plan.query_block : p.q_len;
  t.key_begin = 0;
  t.key_end = p.kv_len;
  return t;
}

void run_one_task(void* context, size_t index, int worker) {
  const Plan& plan = *static_cast<const Plan*>(context);
  const AttentionTask task = make_task(plan, index);
  float* scratch =
      reinterpret_cast<float*>(plan.scratch + static_cast<size_t>(worker) * plan.scratch_stride);
  plan.kernels->run_task(*plan.params, task, scratch);
}

// Combines the chunks of every decode row: m = max m_c, l = sum l_c 2^(m_c - m),
// o = sum o_c 2^(m_c - m) / l, in chunk order.
void merge_partials(const Plan& plan) {
  const AttentionParams& p = *plan.params;
  const size_t stride = p.head_dim + 2;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.heads; ++h) {
      for (size_t i = 0; i < p.q_len; ++i) {
        const auto chunk_row = [&](size_t c) {
          return plan.partials + (((b * plan.chunks + c) * p.heads + h) * p.q_len + i) * stride;
        };
        float m = -INFINITY;
        for (size_t c = 0; c < plan.chunks; ++c) m = std::fmax(m, chunk_row(c)[0]);
        float* out =
            p.out + b * p.out_strides.batch + i * p.out_strides.seq + h * p.out_strides.head;
        for (size_t d = 0; d < p.head_dim; ++d) out[d] = 0.0f;
        float l = 0.0f;
        if (m != -INFINITY) {
          for (size_t c = 0; c < plan.chunks; ++c) {
            const float* part = chunk_row(c);
            const float w = simd::exp2_scalar(part[0] - m);
            l += part[1] * w;
            for (size_t d = 0; d < p.head_dim; ++d) out[d] += part[2 + d] * w;
          }
        }
        const float inv = l > 0.0f ? 1.0f / l : 0.0f;
        for (size_t d = 0; d < p.head_dim; ++d) out[d] *= inv;
      }
    }
  }
}

// Inspection: softmax weights of the requested heads, recomputed row by row with the
// same mask rules (a debugging aid, not a fast path).
void write_weights(const AttentionParams& p) {
  const float scale = kernels::effective_scale(p);
  const size_t group = p.heads / p.kv_heads;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.heads && h < 64; ++h) {
      if (!((p.weights_heads >> h) & 1u)) continue;
      for (size_t i = 0; i < p.q_len; ++i) {
        float* w = p.weights + ((b * p.heads + h) * p.q_len + i) * p.kv_len;
        const kernels::KeyRange visible = kernels::visible_keys(p, b, i);
        const float* q = p.q + b * p.q_strides.batch + i * p.q_strides.seq + h * p.q_strides.head;
        float max_score = -INFINITY;
        bool nan = false;  // a NaN score makes the row's weights NaN, as in PyTorch
        for (size_t j = 0; j < p.kv_len; ++j) {
          w[j] = -INFINITY;
          if (j < visible.begin || j >= visible.end) continue;
          float dot = 0.0f;
          for (size_t d = 0; d < p.head_dim; ++d) dot += q[d] * kernels::load_key(p, b, j, h / group, d);
          w[j] = dot * scale + kernels::bias_at(p.mask, b, h, i, j);
          nan = nan || w[j] != w[j];
          max_score = std::fmax(max_score, w[j]);
        }
        nan = nan || max_score == INFINITY;
        float sum = 0.0f;
        for (size_t j = 0; j < p.kv_len; ++j) {
          w[j] = nan ? NAN : max_score == -INFINITY ? 0.0f : std::exp(w[j] - max_score);
          sum += w[j];
        }
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;  // NaN rows stay NaN: NaN * 0
        for (size_t j = 0; j < p.kv_len; ++j) w[j] *= inv;
      }
    }
  }
}

// Every division by batch or kv heads below is defined: O(1), so checked even on the
// trusted path (a broken trust then fails instead of dividing by zero).
bool has_groups(const AttentionParams& p) { return p.batch >= 1 && p.kv_heads >= 1; }

}  // namespace

Status check_attention_key_lengths(const AttentionParams& p) {
  if (p.mask.key_lengths == nullptr) return Status();
  for (size_t b = 0; b < p.batch; ++b) {
    const int32_t length = p.mask.key_lengths[b];
    if (length < 0 || static_cast<size_t>(length) > p.kv_len) {
      return Status::error(StatusCode::kOutOfRange,
                           "attention: key_lengths[%u] = %d outside 0..kv_len",
                           static_cast<unsigned>(b), static_cast<int>(length));
    }
  }
  return Status();
}

size_t attention_run_workspace_bytes(const AttentionParams& params, int workers) {
  if (!has_groups(params)) return 0;
  const size_t count = workers < 1 ? 1 : static_cast<size_t>(workers);
  size_t bytes = 0;
  if (!checked_mul(count, scratch_bytes_per_worker(params), &bytes) ||
      !checked_add(bytes, partial_bytes(params), &bytes) || !checked_add(bytes, 64, &bytes)) {
    return 0;  // too many workers for this problem's scratch
  }
  return bytes;
}

Status run_attention(const AttentionParams& params, void* workspace, size_t workspace_bytes,
                     ParallelFor* parallel, const kernels::KernelSet& set) {
  FOCAL_EXPECT_VALID(check_attention_params(params, workspace, workspace_bytes, parallel));
  FOCAL_RETURN_IF_ERROR(check_attention_key_lengths(params));
  if (!has_groups(params)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "attention: batch and kv_heads must be >= 1");
  }
  const int workers = parallel != nullptr ? parallel->workers() : 1;
  // Align the caller's workspace to 64 bytes (the +64 in the size allows for it).
  uint8_t* base = static_cast<uint8_t*>(workspace);
  base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;

  Plan plan;
  plan.params = &params;
  plan.kernels = kernels::kernels_of(set, &kernels::KernelSet::attention);
  plan.group = params.heads / params.kv_heads;
  plan.query_block = prefill_query_block(params);
  plan.query_blocks = (params.q_len + plan.query_block - 1) / plan.query_block;
  plan.chunks = chunks_per_row(params);
  plan.partials = partial_bytes(params) > 0 ? reinterpret_cast<float*>(base) : nullptr;
  plan.scratch = base + partial_bytes(params);
  plan.scratch_stride = scratch_bytes_per_worker(params);

  // Score and value multiply-adds (in double: the product of five sizes can pass 2^64):
  // below kMinParallelMacs the calling thread does it all.
  const double macs = 2.0 * double(params.batch) * double(params.heads) * double(params.q_len) *
                      double(params.kv_len) * double(params.head_dim);
  const bool parallel_ok = parallel != nullptr && workers > 1 && macs >= double(kMinParallelMacs);
  plan.head_parts = 1;
  if (parallel_ok && decode_all_heads(params)) {
    plan.head_parts = static_cast<size_t>(workers) < params.kv_heads ? static_cast<size_t>(workers) : params.kv_heads;
  }

  const size_t tasks = task_count(plan);
  if (parallel_ok) {
    parallel->run(tasks, run_one_task, &plan);
  } else {
    for (size_t t = 0; t < tasks; ++t) run_one_task(&plan, t, 0);
  }
  if (plan.partials != nullptr) merge_partials(plan);
  if (params.weights != nullptr) write_weights(params);
  return Status();
}

}  // namespace focal
