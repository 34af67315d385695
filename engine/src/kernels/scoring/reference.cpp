// Scalar reference twins of the attention scoring family: the definitions the SIMD
// kernels are tested against. Three passes over the valid positions (max, sum of exps,
// weighted values), recomputing each score every time so no scratch memory is needed.
#include <cmath>

#include "scoring/scoring_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Score of one position; `Score` is a callable j -> float. Writes context and weights.
template <class Score>
void softmax_context(size_t src_len, size_t valid, const float* values, size_t values_stride,
                     size_t value_dim, float* context, float* weights, const Score& score) {
  float max_score = -INFINITY;
  for (size_t j = 0; j < valid; ++j) max_score = std::fmax(max_score, score(j));
  float sum = 0.0f;
  if (max_score != -INFINITY) {
    for (size_t j = 0; j < valid; ++j) sum += std::exp(score(j) - max_score);
  }
  const float inv_sum = sum > 0.0f ? 1.0f / sum : 0.0f;  // nothing valid: zeros
  for (size_t d = 0; d < value_dim; ++d) context[d] = 0.0f;
  for (size_t j = 0; j < src_len; ++j) {
    const float weight =
        j < valid && inv_sum > 0.0f ? std::exp(score(j) - max_score) * inv_sum : 0.0f;
    if (weights != nullptr) weights[j] = weight;
    if (weight == 0.0f) continue;
    const float* row = values + j * values_stride;
    for (size_t d = 0; d < value_dim; ++d) context[d] += weight * row[d];
  }
}

// act(w . [s; h_j] + b) summed as written, the state's terms first.
float concat_score(const LuongAttentionParams& p, const float* key) {
  float sum = p.bias != nullptr ? *p.bias : 0.0f;
  for (size_t q = 0; q < p.query_dim; ++q) sum += p.w[q] * p.query[q];
  for (size_t k = 0; k < p.key_dim; ++k) sum += p.w[p.query_dim + k] * key[k];
  return p.tanh ? std::tanh(sum) : sum;
}

}  // namespace

void additive_attention_reference_f32(const AdditiveAttentionParams& p) {
  const size_t stride = row_stride(p.keys_proj_stride, p.units);
  const auto score = [&](size_t j) {
    const float* key = p.keys_proj + j * stride;
    float sum = 0.0f;
    for (size_t u = 0; u < p.units; ++u) sum += p.v[u] * std::tanh(p.query_proj[u] + key[u]);
    return sum;
  };
  softmax_context(p.src_len, valid_keys(p.key_length, p.src_len), p.values,
                  row_stride(p.values_stride, p.value_dim), p.value_dim, p.context, p.weights,
                  score);
}

void luong_attention_reference_f32(const LuongAttentionParams& p) {
  const size_t stride = row_stride(p.keys_stride, p.key_dim);
  const auto score = [&](size_t j) {
    const float* key = p.keys + j * stride;
    if (p.score == LuongScore::kConcat) return p.scale * concat_score(p, key);
    float sum = 0.0f;
    for (size_t q = 0; q < p.query_dim; ++q) {
      if (p.score == LuongScore::kDot) {
        sum += p.query[q] * key[q];
        continue;
      }
      float projected = 0.0f;  // (W h_j)[q]
      for (size_t k = 0; k < p.key_dim; ++k) projected += p.w[q * p.key_dim + k] * key[k];
      sum += p.query[q] * projected;
    }
    return p.scale * sum;
  };
  softmax_context(p.src_len, valid_keys(p.key_length, p.src_len), p.values,
                  row_stride(p.values_stride, p.value_dim), p.value_dim, p.context, p.weights,
                  score);
}

}  // namespace kernels
}  // namespace focal
