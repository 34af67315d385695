// Scalar reference twin of the attention family: the definition the SIMD kernels are
// tested against. Straightforward: per query row, max, sum of exps, weighted values.
#include <cmath>
#include <cstring>

#include "attention/attention_kernels.h"
#include "attention/attention_mask.h"
#include "attention/kv_storage.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

namespace {

// Score of query row (b, h, i) against key j, or -inf when masked.
float score(const AttentionParams& p, const KeyRange& visible, size_t b, size_t h, size_t i,
            size_t j, float scale) {
  if (j < visible.begin || j >= visible.end) return -INFINITY;
  const size_t g = h / (p.heads / p.kv_heads);
  const float* q = p.q + b * p.q_strides.batch + i * p.q_strides.seq + h * p.q_strides.head;
  float dot = 0.0f;
  for (size_t d = 0; d < p.head_dim; ++d) dot += q[d] * load_key(p, b, j, g, d);
  return dot * scale + bias_at(p.mask, b, h, i, j);
}

// Three passes over the keys (max, sum, weighted values), recomputing the scores each
// time so the reference needs no scratch memory at any sequence length.
void attend_row(const AttentionParams& p, size_t b, size_t h, size_t i, float scale) {
  const size_t g = h / (p.heads / p.kv_heads);
  float* out = p.out + b * p.out_strides.batch + i * p.out_strides.seq + h * p.out_strides.head;
  const KeyRange visible = visible_keys(p, b, i);
  float max_score = -INFINITY;
  bool nan = false;  // a NaN or +inf score (NaN or Inf inputs) makes the row NaN, as in PyTorch
  for (size_t j = 0; j < p.kv_len; ++j) {
    const float s = score(p, visible, b, h, i, j, scale);
    nan = nan || s != s;
    max_score = std::fmax(max_score, s);
  }
  nan = nan || max_score == INFINITY;  // exp(inf - inf) is NaN too
  if (nan) max_score = NAN;
  float sum = 0.0f;
  if (max_score != -INFINITY) {
    for (size_t j = 0; j < p.kv_len; ++j) sum += std::exp(score(p, visible, b, h, i, j, scale) - max_score);
  }
  const float inv_sum = sum > 0.0f || nan ? 1.0f / sum : 0.0f;  // no visible key: zeros
  const bool keep_weights = p.weights != nullptr && h < 64 && ((p.weights_heads >> h) & 1u);
  float* weights = keep_weights ? p.weights + ((b * p.heads + h) * p.q_len + i) * p.kv_len : nullptr;
  for (size_t d = 0; d < p.head_dim; ++d) out[d] = 0.0f;
  for (size_t j = 0; j < p.kv_len; ++j) {
    const float s = score(p, visible, b, h, i, j, scale);
    const float weight = s == -INFINITY && !nan ? 0.0f : std::exp(s - max_score) * inv_sum;
    if (weights != nullptr) weights[j] = weight;
    if (weight == 0.0f) continue;
    for (size_t d = 0; d < p.head_dim; ++d) out[d] += weight * load_value(p, b, j, g, d);
  }
}

}  // namespace

void attention_reference_f32(const AttentionParams& p) {
  const float scale = effective_scale(p);
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.heads; ++h) {
      for (size_t i = 0; i < p.q_len; ++i) attend_row(p, b, h, i, scale);
    }
  }
}

}  // namespace kernels
}  // namespace focal
