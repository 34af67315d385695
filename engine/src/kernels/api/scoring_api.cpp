// The public attention scoring entry points: check the problem once, then run it through
// the engine's own door (dispatch/scoring_dispatch.h) on the best kernel set.
#include <cmath>
#include <cstdint>

#include "dispatch/kernel_set.h"
#include "dispatch/scoring_dispatch.h"
#include "focal/attention_scoring.h"
#include "scoring/scoring_kernels.h"

namespace focal {
namespace {

Status invalid(const char* op, const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s", op, what);
}

Status check_size(const char* op, const char* name, size_t value, size_t max) {
  if (value < 1 || value > max) {
    return Status::error(StatusCode::kInvalidArgument, "%s: %s = %lu outside 1..%lu", op, name,
                         static_cast<unsigned long>(value), static_cast<unsigned long>(max));
  }
  return Status();
}

// src_len rows of `dim` floats, `stride` apart (0: dim): the stride must hold a row and
// the last float must be addressable.
Status check_rows(const char* op, const char* name, size_t src_len, size_t dim, size_t stride) {
  if (stride == 0) return Status();
  if (stride < dim) {
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: %s stride %lu is less than its row of %lu", op, name,
                         static_cast<unsigned long>(stride), static_cast<unsigned long>(dim));
  }
  if (src_len > 1 && stride > (SIZE_MAX / sizeof(float) - dim) / (src_len - 1)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: %s stride %lu overflows the address space", op, name,
                         static_cast<unsigned long>(stride));
  }
  return Status();
}

// Sizes and strides; not the data pointers (workspace sizing has none yet).
Status check_shape(const AdditiveAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_size(kAdditiveAttention, "src_len", p.src_len, kMaxScoringSrcLen));
  FOCAL_RETURN_IF_ERROR(check_size(kAdditiveAttention, "units", p.units, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kAdditiveAttention, "value_dim", p.value_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(
      check_rows(kAdditiveAttention, "keys_proj", p.src_len, p.units, p.keys_proj_stride));
  FOCAL_RETURN_IF_ERROR(
      check_rows(kAdditiveAttention, "values", p.src_len, p.value_dim, p.values_stride));
  return check_scoring_key_length(kAdditiveAttention, p.key_length, p.src_len);
}

Status check_params(const AdditiveAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_shape(p));
  if (p.query_proj == nullptr || p.keys_proj == nullptr || p.v == nullptr || p.values == nullptr ||
      p.context == nullptr) {
    return invalid(kAdditiveAttention,
                   "query_proj, keys_proj, v, values and context must not be null");
  }
  return Status();
}

Status check_shape(const LuongAttentionParams& p) {
  if (p.score != LuongScore::kDot && p.score != LuongScore::kGeneral &&
      p.score != LuongScore::kConcat) {
    return invalid(kLuongAttention, "unknown score (kDot, kGeneral or kConcat)");
  }
  if (p.tanh && p.score != LuongScore::kConcat) {
    return invalid(kLuongAttention, "tanh is for the concat score only (kConcat)");
  }
  FOCAL_RETURN_IF_ERROR(check_size(kLuongAttention, "src_len", p.src_len, kMaxScoringSrcLen));
  FOCAL_RETURN_IF_ERROR(check_size(kLuongAttention, "query_dim", p.query_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kLuongAttention, "key_dim", p.key_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kLuongAttention, "value_dim", p.value_dim, kMaxScoringDim));
  if (p.score == LuongScore::kDot && p.query_dim != p.key_dim) {
    return invalid(kLuongAttention, "the dot score needs query_dim == key_dim");
  }
  if (!std::isfinite(p.scale)) return invalid(kLuongAttention, "scale must be finite");
  FOCAL_RETURN_IF_ERROR(check_rows(kLuongAttention, "keys", p.src_len, p.key_dim, p.keys_stride));
  FOCAL_RETURN_IF_ERROR(
      check_rows(kLuongAttention, "values", p.src_len, p.value_dim, p.values_stride));
  return check_scoring_key_length(kLuongAttention, p.key_length, p.src_len);
}

Status check_params(const LuongAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_shape(p));
  if (p.query == nullptr || p.keys == nullptr || p.values == nullptr || p.context == nullptr) {
    return invalid(kLuongAttention, "query, keys, values and context must not be null");
  }
  if (p.score == LuongScore::kGeneral && p.w == nullptr)
    return invalid(kLuongAttention, "the general score needs w");
  if (p.score == LuongScore::kConcat && p.w == nullptr)
    return invalid(kLuongAttention, "the concat score needs w [query_dim + key_dim]");
  if (p.score != LuongScore::kConcat && p.bias != nullptr)
    return invalid(kLuongAttention, "bias is for the concat score only (kConcat)");
  if (p.score == LuongScore::kDot && p.w != nullptr) {
    return invalid(kLuongAttention, "the dot score takes no w (did you mean kGeneral?)");
  }
  return Status();
}

Status check_workspace(const char* op, const void* workspace, size_t bytes, size_t needed) {
  if (workspace == nullptr || bytes < needed) {
    return Status::error(StatusCode::kResourceExhausted, "%s: workspace of %lu bytes, %lu needed",
                         op, static_cast<unsigned long>(bytes), static_cast<unsigned long>(needed));
  }
  return Status();
}

// The workspace of a problem whose shape check_shape accepted (checked once per call).
size_t workspace_bytes_of(const AdditiveAttentionParams& p) {
  return scoring_workspace_floats(p.src_len, 0) * sizeof(float) + kScoringWorkspaceAlign;
}

size_t workspace_bytes_of(const LuongAttentionParams& p) {
  const size_t projected = p.score == LuongScore::kGeneral ? p.key_dim : 0;
  return scoring_workspace_floats(p.src_len, projected) * sizeof(float) + kScoringWorkspaceAlign;
}

}  // namespace

Status check_additive_attention_params(const AdditiveAttentionParams& params, const void* workspace,
                                       size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  return check_workspace(kAdditiveAttention, workspace, workspace_bytes,
                         workspace_bytes_of(params));
}

Status check_luong_attention_params(const LuongAttentionParams& params, const void* workspace,
                                    size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  return check_workspace(kLuongAttention, workspace, workspace_bytes, workspace_bytes_of(params));
}

Status additive_attention_with_kernels(const AdditiveAttentionParams& params,
                                       const kernels::KernelSet& set, void* workspace,
                                       size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_additive_attention_params(params, workspace, workspace_bytes));
  return run_additive_attention(params, workspace, workspace_bytes, set);
}

Status luong_attention_with_kernels(const LuongAttentionParams& params,
                                    const kernels::KernelSet& set, void* workspace,
                                    size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_luong_attention_params(params, workspace, workspace_bytes));
  return run_luong_attention(params, workspace, workspace_bytes, set);
}

size_t additive_attention_workspace_bytes(const AdditiveAttentionParams& params) {
  return check_shape(params).ok() ? workspace_bytes_of(params) : 0;
}

size_t luong_attention_workspace_bytes(const LuongAttentionParams& params) {
  return check_shape(params).ok() ? workspace_bytes_of(params) : 0;
}

Status additive_attention(const AdditiveAttentionParams& params, void* workspace,
                          size_t workspace_bytes) {
  return additive_attention_with_kernels(params, kernels::kBestKernels, workspace, workspace_bytes);
}

Status luong_attention(const LuongAttentionParams& params, void* workspace,
                       size_t workspace_bytes) {
  return luong_attention_with_kernels(params, kernels::kBestKernels, workspace, workspace_bytes);
}

Status additive_attention_reference(const AdditiveAttentionParams& params) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  kernels::additive_attention_reference_f32(params);
  return Status();
}

Status luong_attention_reference(const LuongAttentionParams& params) {
  FOCAL_RETURN_IF_ERROR(check_params(params));
  kernels::luong_attention_reference_f32(params);
  return Status();
}

const char* attention_scoring_isa() {
  return kernels::best_kernels<kernels::ScoringKernelTable>()->isa;
}

}  // namespace focal
