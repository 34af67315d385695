// Scalar reference: one query at a time, online softmax (running max and sum) so no
// scratch memory is needed; the output row itself accumulates the weighted values.
#include <cmath>

#include "attention/attention.h"

namespace focal {
namespace kernels {
namespace {

void attend_one_query(const AttentionParams& p, const float* q_row, const float* k_head,
                      const float* v_head, size_t visible, float* out_row) {
  float running_max = -INFINITY;
  float running_sum = 0.0f;
  for (size_t d = 0; d < p.head_dim; ++d) out_row[d] = 0.0f;
  for (size_t j = 0; j < visible; ++j) {
    const float* k_row = k_head + j * p.k.seq;
    const float* v_row = v_head + j * p.v.seq;
    float score = 0.0f;
    for (size_t d = 0; d < p.head_dim; ++d) score += q_row[d] * k_row[d];
    score *= p.scale;
    if (score > running_max) {
      // Rescale what was accumulated under the old maximum.
      const float correction = std::exp(running_max - score);
      running_sum *= correction;
      for (size_t d = 0; d < p.head_dim; ++d) out_row[d] *= correction;
      running_max = score;
    }
    const float weight = std::exp(score - running_max);
    running_sum += weight;
    for (size_t d = 0; d < p.head_dim; ++d) out_row[d] += weight * v_row[d];
  }
  if (running_sum > 0.0f) {
    const float inv_sum = 1.0f / running_sum;
    for (size_t d = 0; d < p.head_dim; ++d) out_row[d] *= inv_sum;
  }
}

// How many leading keys query i may see.
size_t visible_keys(const AttentionParams& p, size_t i) {
  if (!p.causal) return p.kv_len;
  const long last = static_cast<long>(i) + p.causal_offset;  // last visible key index
  if (last < 0) return 0;
  const size_t count = static_cast<size_t>(last) + 1;
  return count < p.kv_len ? count : p.kv_len;
}

}  // namespace

void attention_f32_reference(const AttentionParams& p, const float* q, const float* k,
                             const float* v, float* out) {
  const size_t group = p.heads / p.kv_heads;
  for (size_t b = 0; b < p.batch; ++b) {
    for (size_t h = 0; h < p.heads; ++h) {
      const size_t g = h / group;
      const float* k_head = k + b * p.k.batch + g * p.k.head;
      const float* v_head = v + b * p.v.batch + g * p.v.head;
      for (size_t i = 0; i < p.q_len; ++i) {
        attend_one_query(p, q + b * p.q.batch + i * p.q.seq + h * p.q.head, k_head, v_head,
                         visible_keys(p, i),
                         out + b * p.out.batch + i * p.out.seq + h * p.out.head);
      }
    }
  }
}

}  // namespace kernels
}  // namespace focal
