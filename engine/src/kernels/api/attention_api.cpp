// The public attention entry points: check the problem once, then run it through the
// engine's own door (dispatch/attention_dispatch.h) on the best kernel set.
#include <cmath>

#include "attention/attention_kernels.h"
#include "dispatch/attention_dispatch.h"
#include "dispatch/kernel_set.h"
#include "focal/attention.h"
#include "support/saturating_size.h"

namespace focal {
namespace {

Status invalid(const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "attention: %s", what);
}

// True when no count or byte size the plan computes can wrap (checked once here, so the
// plan's own arithmetic stays plain). Bounds, from above: tasks and kv-head groups are at
// most batch * heads * q_len; split-KV partials are that times the chunks and head_dim + 2
// floats; one worker's scratch (attention_task_scratch_floats) is at most
// (rows + keys) * (2 * padded head_dim + kKeyBlock + 2) floats.
bool sizes_fit(const AttentionParams& p) {
  size_t rows_total = 0, partials = 0, scratch = 0, total = 0;
  const size_t chunks = p.kv_len / kAttentionDecodeChunk + 1;
  const size_t rows = kernels::kMaxTaskRows + 3, keys = p.kv_len + kernels::kKeyBlock;
  const size_t row_floats =
      2 * kernels::round_up(p.head_dim, kernels::kDimAlign) + kernels::kKeyBlock + 2;
  return checked_mul(p.batch, p.heads, &rows_total) &&
         checked_mul(rows_total, p.q_len, &rows_total) &&
         checked_mul(rows_total, chunks, &partials) &&
         checked_mul(partials, p.head_dim + 2, &partials) &&
         checked_mul(partials, sizeof(float), &partials) && checked_add(rows, keys, &scratch) &&
         checked_mul(scratch, row_floats, &scratch) &&
         checked_mul(scratch, sizeof(float), &scratch) && checked_add(partials, scratch, &total) &&
         checked_add(total, size_t(3) * 64, &total);  // 64-byte round-ups
}

// Sizes, options and mask; not the data pointers (workspace sizing has none yet).
Status check_shape(const AttentionParams& p) {
  if (p.batch < 1 || p.heads < 1 || p.kv_heads < 1 || p.q_len < 1 || p.kv_len < 1) {
    return invalid("batch, heads, kv_heads, q_len and kv_len must be >= 1");
  }
  if (p.heads % p.kv_heads != 0) return invalid("kv_heads must divide heads");
  if (p.heads > 65535 || p.q_len > (size_t(1) << 31) || p.kv_len > (size_t(1) << 31)) {
    return invalid("more than 65535 heads or 2^31 positions");
  }
  if (p.head_dim < 1 || p.head_dim > kMaxAttentionHeadDim)
    return invalid("head_dim must be 1 to 256");
  if (!(p.scale >= 0.0f) || !std::isfinite(p.scale))
    return invalid("scale must be finite and >= 0");
  if (p.mask.window < 0 || (p.mask.window > 0 && !p.mask.causal)) {
    return invalid("a sliding window must be positive and needs causal");
  }
  if (p.kv_type != KvType::kF32 && p.kv_type != KvType::kF16 && p.kv_type != KvType::kI8) {
    return invalid("unknown kv_type");
  }
  if (!sizes_fit(p))
    return invalid("batch, heads, lengths and head_dim need a workspace beyond size_t");
  return Status();
}

Status check_params(const AttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_shape(p));
  if (p.q == nullptr || p.k == nullptr || p.v == nullptr || p.out == nullptr) {
    return invalid("q, k, v and out must not be null");
  }
  if (p.kv_type == KvType::kI8 && (p.k_scales == nullptr || p.v_scales == nullptr)) {
    return invalid("int8 K and V need k_scales and v_scales");
  }
  return Status();
}

}  // namespace

Status check_attention_params(const AttentionParams& params, const void* workspace,
                              size_t workspace_bytes, ParallelFor* parallel) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  const int workers = parallel != nullptr ? parallel->workers() : 1;
  const size_t needed = attention_run_workspace_bytes(params, workers);  // shape checked above
  if (needed == 0) return invalid("the workspace for this many workers exceeds size_t");
  if (workspace == nullptr || workspace_bytes < needed) {
    return Status::error(StatusCode::kResourceExhausted,
                         "attention: workspace of %zu bytes, %zu needed", workspace_bytes, needed);
  }
  return Status();
}

size_t attention_workspace_bytes(const AttentionParams& params, int workers) {
  if (!check_shape(params).ok()) return 0;
  return attention_run_workspace_bytes(params, workers);
}

Status attention(const AttentionParams& params, void* workspace, size_t workspace_bytes,
                 ParallelFor* parallel) {
  return attention_with_kernels(params, kernels::kBestKernels, workspace, workspace_bytes,
                                parallel);
}

Status attention_with_kernels(const AttentionParams& params, const kernels::KernelSet& set,
                              void* workspace, size_t workspace_bytes, ParallelFor* parallel) {
  FOCAL_RETURN_IF_ERROR(check_attention_params(params, workspace, workspace_bytes, parallel));
  return run_attention(params, workspace, workspace_bytes, parallel, set);
}

Status attention_reference(const AttentionParams& params) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  FOCAL_RETURN_IF_ERROR(check_attention_key_lengths(params));
  kernels::attention_reference_f32(params);
  return Status();
}

const char* attention_isa() { return kernels::best_kernels<kernels::AttentionKernelTable>()->isa; }

}  // namespace focal
