// The engine's one door to the tiled attention kernels. Ops call run_attention with
// parameters their load-time checks validated and a workspace the session sized; the
// public focal::attention (api/attention_api.cpp) checks the same parameters once
// (check_attention_params), then runs them here. Both run on a kernel set: the best one
// unless a test or benchmark names another.
#pragma once

#include <cstdint>

#include "attention/attention_kernels.h"
#include "dispatch/kernel_set.h"
#include "focal/attention.h"

namespace focal {

// Decode (few queries per kv head) splits keys into chunks of this many, each a task,
// merged by log-sum-exp. Fixed, so results do not depend on the worker count.
constexpr size_t kAttentionDecodeChunk = 512;

// The strides of a dense [B, seq, features] tensor whose features are heads of head_dim
// (how the attention ops keep q, k, v, caches and their scales).
inline AttentionStrides dense_strides(int64_t seq, int64_t features, int head_dim) {
  AttentionStrides s;
  s.batch = static_cast<size_t>(seq * features);
  s.seq = static_cast<size_t>(features);
  s.head = static_cast<size_t>(head_dim);
  return s;
}

// Everything focal::attention refuses before it looks at the data, as its Status.
Status check_attention_params(const AttentionParams& params, const void* workspace,
                              size_t workspace_bytes, ParallelFor* parallel);

// Key lengths are data (from a mask at run time), so even trusted calls check them:
// kOutOfRange for one outside 0..kv_len.
Status check_attention_key_lengths(const AttentionParams& params);

// The workspace run_attention needs with `workers` threads, for parameters whose shape
// check_attention_params accepts; 0 when that exceeds size_t.
size_t attention_run_workspace_bytes(const AttentionParams& params, int workers);

// Runs attention whose parameters and workspace check_attention_params accepts (trusted:
// not checked again). Fails only on the data: key lengths outside 0..kv_len.
Status run_attention(const AttentionParams& params, void* workspace, size_t workspace_bytes,
                     ParallelFor* parallel, const kernels::KernelSet& set = kernels::kBestKernels);

// check_attention_params, then run_attention on `set` (tests sweep every usable set).
Status attention_with_kernels(const AttentionParams& params, const kernels::KernelSet& set,
                              void* workspace, size_t workspace_bytes, ParallelFor* parallel);

}  // namespace focal
