// Running attention scoring on a kernel set: compose its kernels (scores -> softmax ->
// weighted sum of values) over the caller's workspace.
#include "dispatch/scoring_dispatch.h"

#include <cmath>
#include <cstdint>

#include "support/trusted_call.h"

namespace focal {
namespace {

using kernels::ScoringKernelTable;

constexpr size_t kPadFloats = 16;  // each workspace array starts 64-byte aligned

size_t round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

float* aligned_floats(void* workspace) {
  uint8_t* base = static_cast<uint8_t*>(workspace);
  base += (kScoringWorkspaceAlign - reinterpret_cast<uintptr_t>(base) % kScoringWorkspaceAlign) %
          kScoringWorkspaceAlign;
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

// The concat score act(w . [s; h_j] + b) from the dot kernel: w's key part against
// every key, then the state part's dot and the bias (the same for the whole sequence)
// added in a small loop with the activation; scale as in the other Luong forms.
void concat_scores(const ScoringKernelTable& k, const LuongAttentionParams& p, size_t valid,
                   float* scores) {
  if (valid == 0) return;
  k.dot_scores(p.w + p.query_dim, p.keys, kernels::row_stride(p.keys_stride, p.key_dim),
               p.key_dim, valid, 1.0f, scores);
  float state_part = 0.0f;
  k.dot_scores(p.w, p.query, p.query_dim, p.query_dim, 1, 1.0f, &state_part);
  if (p.bias != nullptr) state_part += *p.bias;
  for (size_t j = 0; j < valid; ++j) {
    const float pre = state_part + scores[j];
    scores[j] = p.scale * (p.tanh ? std::tanh(pre) : pre);
  }
}

}  // namespace

Status check_scoring_key_length(const char* op, int32_t key_length, size_t src_len) {
  if (key_length < -1 || (key_length >= 0 && static_cast<size_t>(key_length) > src_len)) {
    return Status::error(StatusCode::kOutOfRange,
                         "%s: key_length %d outside -1 (all) or 0..src_len %lu", op,
                         static_cast<int>(key_length), static_cast<unsigned long>(src_len));
  }
  return Status();
}

// Floats of workspace: the scores, then (general) u = W^T s, each 64-byte aligned.
size_t scoring_workspace_floats(size_t src_len, size_t projected) {
  return round_up(src_len, kPadFloats) + round_up(projected, kPadFloats);
}

Status run_additive_attention(const AdditiveAttentionParams& p, void* workspace,
                              size_t workspace_bytes, const kernels::KernelSet& set) {
  FOCAL_EXPECT_VALID(check_additive_attention_params(p, workspace, workspace_bytes));
  FOCAL_RETURN_IF_ERROR(check_scoring_key_length(kAdditiveAttention, p.key_length, p.src_len));
  const ScoringKernelTable* k = kernels::kernels_of(set, &kernels::KernelSet::scoring);
  const size_t valid = kernels::valid_keys(p.key_length, p.src_len);
  float* scores = p.weights != nullptr ? p.weights : aligned_floats(workspace);
  k->additive_scores(p.query_proj, p.keys_proj, kernels::row_stride(p.keys_proj_stride, p.units),
                     p.v, p.units, valid, scores);
  finish(*k, scores, p.src_len, valid, p.weights != nullptr, p.values,
         kernels::row_stride(p.values_stride, p.value_dim), p.value_dim, p.context);
  return Status();
}

Status run_luong_attention(const LuongAttentionParams& p, void* workspace, size_t workspace_bytes,
                           const kernels::KernelSet& set) {
  FOCAL_EXPECT_VALID(check_luong_attention_params(p, workspace, workspace_bytes));
  FOCAL_RETURN_IF_ERROR(check_scoring_key_length(kLuongAttention, p.key_length, p.src_len));
  const ScoringKernelTable* k = kernels::kernels_of(set, &kernels::KernelSet::scoring);
  const size_t valid = kernels::valid_keys(p.key_length, p.src_len);
  float* base = aligned_floats(workspace);
  float* scores = p.weights != nullptr ? p.weights : base;
  const float* query = p.query;
  if (p.score == LuongScore::kConcat) {
    concat_scores(*k, p, valid, scores);
    finish(*k, scores, p.src_len, valid, p.weights != nullptr, p.values,
           kernels::row_stride(p.values_stride, p.value_dim), p.value_dim, p.context);
    return Status();
  }
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

}  // namespace focal
