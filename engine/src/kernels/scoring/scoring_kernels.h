// Internal interface of the attention scoring family (the public one is
// include/focal/attention_scoring.h): four pure kernels that scoring_api.cpp composes
// into one decoder step,
//   additive (Bahdanau):  additive_scores -> softmax -> weighted_sum
//   Luong dot:            dot_scores      -> softmax -> weighted_sum
//   Luong general:        weighted_sum (u = W^T s) -> dot_scores(u) -> softmax -> weighted_sum
//   concat:               dot_scores(w_h) + (w_s . s + b), act -> softmax -> weighted_sum
// Rows are addressed with a stride in floats; no kernel allocates or checks anything.
#pragma once

#include <cstddef>

#include "focal/attention_scoring.h"

namespace focal {
namespace kernels {

// scores[j] = v . tanh(query_proj + keys_proj[j * stride .. + units]) for j < count.
using AdditiveScoresFn = void (*)(const float* query_proj, const float* keys_proj, size_t stride,
                                  const float* v, size_t units, size_t count, float* scores);

// scores[j] = scale * (query . keys[j * stride .. + dim]) for j < count.
using DotScoresFn = void (*)(const float* query, const float* keys, size_t stride, size_t dim,
                             size_t count, float scale, float* scores);

// In place over x[0, count): x_j <- exp(x_j - max) / sum_k exp(x_k - max), computed as
// exp2((x_j - max) * log2(e)). A row whose exps all vanish (or count 0) becomes zeros.
using ScoreSoftmaxFn = void (*)(float* x, size_t count);

// out[0, width) = sum_{j < count} coeffs[j] * rows[j * stride .. + width]; zeros when
// count is 0. Serves both the context (coeffs = weights, rows = values) and W^T s
// (coeffs = s, rows = the rows of W).
using WeightedSumFn = void (*)(const float* coeffs, const float* rows, size_t stride, size_t width,
                               size_t count, float* out);

// The row stride a params struct means (0: dense rows of `dim`), and the number of valid
// positions (key_length -1: all src_len).
inline size_t row_stride(size_t stride, size_t dim) { return stride != 0 ? stride : dim; }
inline size_t valid_keys(int32_t key_length, size_t src_len) {
  return key_length < 0 ? src_len : static_cast<size_t>(key_length);
}

struct ScoringKernelTable {
  const char* isa;
  AdditiveScoresFn additive_scores;
  DotScoresFn dot_scores;
  ScoreSoftmaxFn softmax;
  WeightedSumFn weighted_sum;
};


// The reference twins (params already checked): plain loops in f32, std::tanh and
// std::exp, scores recomputed in each of three passes (max, sum, output).
void additive_attention_reference_f32(const AdditiveAttentionParams& params);
void luong_attention_reference_f32(const LuongAttentionParams& params);

}  // namespace kernels
}  // namespace focal
