// Internal interface of the attention kernel family (the public one is
// include/focal/attention.h). The work is cut into tasks; each task attends a set of
// query rows to a range of keys. A row is one (head, query position) pair: in prefill a
// block of positions of one head, in decode every head of a grouped-query group (they
// read the same K and V), so the register tile is filled in both.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/attention.h"

namespace focal {
namespace kernels {

// A task attends the query rows (head, position) for heads [head_begin, head_end) and
// positions [query_begin, query_end) to keys within [key_begin, key_end). Rows are
// processed kMaxTaskRows at a time. Two paths:
//  - tiled (prefill): the heads are one grouped-query group (kv_head); K and V of the
//    range are packed once per task and reused by every row;
//  - streaming (decode, at most kStreamMaxRows rows, head_dim a multiple of kDimAlign):
//    K and V are read in place; the heads may span several kv heads.
constexpr size_t kMaxTaskRows = 64;
constexpr size_t kStreamMaxRows = 16;

struct AttentionTask {
  size_t batch;
  size_t kv_head;
  size_t head_begin, head_end;
  size_t query_begin, query_end;
  size_t key_begin, key_end;
  // Split-KV decode: when non-null, row k = (h - head_begin) * queries + (i - query_begin)
  // writes its running max m (log2 domain), sum l and unnormalized output o[head_dim]
  // to partial[k * (head_dim + 2) + {0: m, 1: l, 2..: o}] instead of to `out`.
  // kv_head is only meaningful on the tiled path.
  float* partial;
};

// Tiling shared by every ISA (so one workspace size fits all): keys are processed in
// blocks of kKeyBlock, head_dim is padded to kDimAlign floats (one AVX-512 vector).
constexpr size_t kKeyBlock = 64;
constexpr size_t kDimAlign = 16;

inline size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Rows a task processes at once: its heads x queries, at most kMaxTaskRows.
inline size_t task_row_capacity(size_t rows) { return rows < kMaxTaskRows ? rows : kMaxTaskRows; }

// Floats of per-worker scratch for tasks of up to `max_rows` rows and `max_keys` keys:
// packed queries and outputs, transposed keys and values, scores, and per row the running
// max, the output's rescale factor and one vector of partial running sums.
inline size_t attention_task_scratch_floats(size_t head_dim, size_t max_rows, size_t max_keys) {
  const size_t d = round_up(head_dim, kDimAlign);
  const size_t rows = round_up(task_row_capacity(max_rows), 4);
  const size_t keys = round_up(max_keys, kKeyBlock);
  return rows * d * 2 + keys * d * 2 + rows * kKeyBlock + rows * (2 + kDimAlign);
}

using AttentionTaskFn = void (*)(const AttentionParams& params, const AttentionTask& task,
                                 float* scratch);

struct AttentionKernelTable {
  const char* isa;
  AttentionTaskFn run_task;
  // y[i] = 2^x[i] with the kernel set's general exp2, and with the softmax's own form
  // for x <= 64 (Vec::exp2_bounded), for tests of their accuracy.
  void (*exp2)(const float* x, float* y, size_t count);
  void (*exp2_bounded)(const float* x, float* y, size_t count);
};


// The reference twin: plain loops, two-pass softmax in f32, whole problem at once.
void attention_reference_f32(const AttentionParams& params);

}  // namespace kernels
}  // namespace focal
