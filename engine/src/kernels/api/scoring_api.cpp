// The public attention scoring entry points: check the problem, then compose the
// kernels of the best instruction set for this CPU (scores -> softmax -> weighted sum
// of values) over the caller's workspace.
#include <cmath>
#include <cstdint>

#include "focal/attention_scoring.h"
#include "scoring/scoring.h"
#include "dispatch/scoring_dispatch.h"
#include "dispatch/kernel_set.h"

namespace focal {
namespace {

using kernels::ScoringKernelTable;

constexpr size_t kAlign = 64;      // the workspace is used from a 64-byte boundary
constexpr size_t kPadFloats = 16;  // each workspace array starts 64-byte aligned

size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

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

Status check_key_length(const char* op, int32_t key_length, size_t src_len) {
  if (key_length < -1 || (key_length >= 0 && static_cast<size_t>(key_length) > src_len)) {
    return Status::error(StatusCode::kOutOfRange,
                         "%s: key_length %d outside -1 (all) or 0..src_len %lu", op,
                         static_cast<int>(key_length), static_cast<unsigned long>(src_len));
  }
  return Status();
}

constexpr const char* kAdditive = "additive_attention";
constexpr const char* kLuong = "luong_attention";

// Sizes and strides; not the data pointers (workspace sizing has none yet).
Status check_shape(const AdditiveAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_size(kAdditive, "src_len", p.src_len, kMaxScoringSrcLen));
  FOCAL_RETURN_IF_ERROR(check_size(kAdditive, "units", p.units, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kAdditive, "value_dim", p.value_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_rows(kAdditive, "keys_proj", p.src_len, p.units, p.keys_proj_stride));
  FOCAL_RETURN_IF_ERROR(check_rows(kAdditive, "values", p.src_len, p.value_dim, p.values_stride));
  return check_key_length(kAdditive, p.key_length, p.src_len);
}

Status check_params(const AdditiveAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_shape(p));
  if (p.query_proj == nullptr || p.keys_proj == nullptr || p.v == nullptr || p.values == nullptr ||
      p.context == nullptr) {
    return invalid(kAdditive, "query_proj, keys_proj, v, values and context must not be null");
  }
  return Status();
}

Status check_shape(const LuongAttentionParams& p) {
  if (p.score != LuongScore::kDot && p.score != LuongScore::kGeneral) {
    return invalid(kLuong, "unknown score (kDot or kGeneral)");
  }
  FOCAL_RETURN_IF_ERROR(check_size(kLuong, "src_len", p.src_len, kMaxScoringSrcLen));
  FOCAL_RETURN_IF_ERROR(check_size(kLuong, "query_dim", p.query_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kLuong, "key_dim", p.key_dim, kMaxScoringDim));
  FOCAL_RETURN_IF_ERROR(check_size(kLuong, "value_dim", p.value_dim, kMaxScoringDim));
  if (p.score == LuongScore::kDot && p.query_dim != p.key_dim) {
    return invalid(kLuong, "the dot score needs query_dim == key_dim");
  }
  if (!std::isfinite(p.scale)) return invalid(kLuong, "scale must be finite");
  FOCAL_RETURN_IF_ERROR(check_rows(kLuong, "keys", p.src_len, p.key_dim, p.keys_stride));
  FOCAL_RETURN_IF_ERROR(check_rows(kLuong, "values", p.src_len, p.value_dim, p.values_stride));
  return check_key_length(kLuong, p.key_length, p.src_len);
}

Status check_params(const LuongAttentionParams& p) {
  FOCAL_RETURN_IF_ERROR(check_shape(p));
  if (p.query == nullptr || p.keys == nullptr || p.values == nullptr || p.context == nullptr) {
    return invalid(kLuong, "query, keys, values and context must not be null");
  }
  if (p.score == LuongScore::kGeneral && p.w == nullptr)
    return invalid(kLuong, "the general score needs w");
  if (p.score == LuongScore::kDot && p.w != nullptr) {
    return invalid(kLuong, "the dot score takes no w (did you mean kGeneral?)");
  }
  return Status();
}

// Floats of workspace: the scores, then (general) u = W^T s, each 64-byte aligned.
size_t workspace_floats(size_t src_len, size_t projected) {
  return round_up(src_len, kPadFloats) + round_up(projected, kPadFloats);
}

Status check_workspace(const char* op, const void* workspace, size_t bytes, size_t needed) {
  if (workspace == nullptr || bytes < needed) {
    return Status::error(StatusCode::kResourceExhausted, "%s: workspace of %lu bytes, %lu needed",
                         op, static_cast<unsigned long>(bytes), static_cast<unsigned long>(needed));
  }
  return Status();
}

float* aligned_floats(void* workspace) {
  uint8_t* base = static_cast<uint8_t*>(workspace);
  base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;
  return reinterpret_cast<float*>(base);
}

// Softmax over the valid scores, zeros after them (inspection weights), then the context.
void finish(const ScoringKernelTable& k, float* scores, size_t src_len, size_t valid,
            bool scores_are_weights, const float* values, size_t values_stride, size_t value_dim,
            float* context) {
  k.softmax(scores, valid);
  if (scores_are_weights) {
    for (size_t j = valid; j < src_len; ++j) scores[j] = 0.0f;
  }
  k.weighted_sum(scores, values, values_stride, value_dim, valid, context);
}

}  // namespace

size_t additive_attention_workspace_bytes(const AdditiveAttentionParams& params) {
  if (!check_shape(params).ok()) return 0;
  return workspace_floats(params.src_len, 0) * sizeof(float) + kAlign;
}

size_t luong_attention_workspace_bytes(const LuongAttentionParams& params) {
  if (!check_shape(params).ok()) return 0;
  const size_t projected = params.score == LuongScore::kGeneral ? params.key_dim : 0;
  return workspace_floats(params.src_len, projected) * sizeof(float) + kAlign;
}

Status additive_attention_with_kernels(const AdditiveAttentionParams& p,
                                       const ScoringKernelTable* k, void* workspace,
                                       size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_params(p));
  FOCAL_RETURN_IF_ERROR(check_workspace(kAdditive, workspace, workspace_bytes,
                                        additive_attention_workspace_bytes(p)));
  const size_t valid = kernels::valid_keys(p.key_length, p.src_len);
  float* scores = p.weights != nullptr ? p.weights : aligned_floats(workspace);
  k->additive_scores(p.query_proj, p.keys_proj, kernels::row_stride(p.keys_proj_stride, p.units),
                     p.v, p.units, valid, scores);
  finish(*k, scores, p.src_len, valid, p.weights != nullptr, p.values,
         kernels::row_stride(p.values_stride, p.value_dim), p.value_dim, p.context);
  return Status();
}

Status luong_attention_with_kernels(const LuongAttentionParams& p, const ScoringKernelTable* k,
                                    void* workspace, size_t workspace_bytes) {
  FOCAL_RETURN_IF_ERROR(check_params(p));
  FOCAL_RETURN_IF_ERROR(
      check_workspace(kLuong, workspace, workspace_bytes, luong_attention_workspace_bytes(p)));
  const size_t valid = kernels::valid_keys(p.key_length, p.src_len);
  float* base = aligned_floats(workspace);
  float* scores = p.weights != nullptr ? p.weights : base;
  const float* query = p.query;
  if (p.score == LuongScore::kGeneral) {
    // u = W^T s: the rows of W weighted by s. Only worth it when there is a key to score.
    float* u = base + round_up(p.src_len, kPadFloats);
    if (valid != 0) k->weighted_sum(p.query, p.w, p.key_dim, p.key_dim, p.query_dim, u);
    query = u;
  }
  k->dot_scores(query, p.keys, kernels::row_stride(p.keys_stride, p.key_dim), p.key_dim, valid,
                p.scale, scores);
  finish(*k, scores, p.src_len, valid, p.weights != nullptr, p.values,
         kernels::row_stride(p.values_stride, p.value_dim), p.value_dim, p.context);
  return Status();
}

Status additive_attention(const AdditiveAttentionParams& params, void* workspace,
                          size_t workspace_bytes) {
  return additive_attention_with_kernels(params, kernels::best_kernels<kernels::ScoringKernelTable>(), workspace, workspace_bytes);
}

Status luong_attention(const LuongAttentionParams& params, void* workspace,
                       size_t workspace_bytes) {
  return luong_attention_with_kernels(params, kernels::best_kernels<kernels::ScoringKernelTable>(), workspace, workspace_bytes);
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

const char* attention_scoring_isa() { return kernels::best_kernels<kernels::ScoringKernelTable>()->isa; }

}  // namespace focal
