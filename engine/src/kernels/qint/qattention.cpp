// Integer scaled dot-product attention of one head (qint_kernels.h): the scores through
// the build's dot products (dot_rows: Helium, DSP or plain C), a Q0.15 softmax over the
// keys a query may see, and the weighted sum of the values requantized to int8.
#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Query i's scores against every key, in Q4.11; keys it may not see are marked in `seen`.
void score_query(const QIntKernelTable& kernels, const QAttentionParams& p, const int8_t* q, const int8_t* k,
                 const uint8_t* key_valid, size_t query, int32_t* scores, uint8_t* seen) {
  for (size_t j = 0; j < p.keys; j += kQIntRows) {
    const size_t rows = p.keys - j < kQIntRows ? p.keys - j : kQIntRows;
    kernels.dot_rows(q, k + j * p.k_stride, p.k_stride, p.head_dim, rows, nullptr, scores + j);
  }
  // The record in locals (scores and seen may alias it) and the multiplier taken apart once.
  const qint::Requantizer r = qint::make_requantizer(p.score_multiplier, p.score_shift);
  const size_t keys = p.keys, last_seen = p.causal ? query : keys - 1;
  for (size_t j = 0; j < keys; ++j) {
    scores[j] = qint::requantize(scores[j], r);
    seen[j] = uint8_t((key_valid == nullptr || key_valid[j] != 0) && j <= last_seen);
  }
}

// out[d] = requantize(sum_j w_j (v_j[d] - z_v)) + z_out; |sum| <= 2^15 * 255 (weights sum to ~1).
// The zero point's part, z_v sum_j w_j, is one product per query; the rest, sum_j w_j
// v_j[d] (|.| <= 2^16 128), accumulates four of the head's dims at a time in registers
// over the keys (at -Os an acc[] loop stored every sum back per key): the same integers.
void weighted_values(const QAttentionParams& p, const int8_t* v, const int32_t* weights, int32_t* acc, int8_t* out) {
  const size_t keys = p.keys, head_dim = p.head_dim, v_stride = p.v_stride;
  int32_t weight_sum = 0;
  for (size_t j = 0; j < keys; ++j) weight_sum += weights[j];
  const int32_t zero_part = p.v_zero_point * weight_sum;
  size_t d = 0;
  for (; d + 4 <= head_dim; d += 4) {
    const int32_t start = -zero_part;
    int32_t a0 = start, a1 = start, a2 = start, a3 = start;
    const int8_t* row = v + d;
    for (size_t j = 0; j < keys; ++j, row += v_stride) {
      const int32_t w = weights[j];
      a0 += w * int32_t(row[0]), a1 += w * int32_t(row[1]), a2 += w * int32_t(row[2]), a3 += w * int32_t(row[3]);
    }
    acc[d] = a0, acc[d + 1] = a1, acc[d + 2] = a2, acc[d + 3] = a3;
  }
  for (; d < head_dim; ++d) {
    int32_t a = -zero_part;
    for (size_t j = 0; j < keys; ++j) a += weights[j] * int32_t(v[j * v_stride + d]);
    acc[d] = a;
  }
  const qint::Requantizer r = qint::make_requantizer(p.output_multiplier, p.output_shift);
  const int32_t zero_point = p.output_zero_point;
  for (d = 0; d < head_dim; ++d) out[d] = int8_t(qint::clamp(qint::requantize(acc[d], r) + zero_point, -128, 127));
}

}  // namespace

void qattention_head(const QIntKernelTable& kernels, const QAttentionParams& p, const int8_t* q, const int8_t* k,
                     const int8_t* v, const uint8_t* key_valid, const QAttentionScratch& scratch,
                     int16_t* weights_q15, int8_t* out) {
  for (size_t i = 0; i < p.queries; ++i) {
    score_query(kernels, p, q + i * p.q_stride, k, key_valid, i, scratch.scores, scratch.seen);
    softmax_q15(scratch.scores, scratch.seen, p.keys);  // a query that sees nothing gets zeros
    if (weights_q15 != nullptr) {
      for (size_t j = 0; j < p.keys; ++j) weights_q15[i * p.keys + j] = int16_t(scratch.scores[j]);
    }
    weighted_values(p, v, scratch.scores, scratch.accumulators, out + i * p.out_stride);
  }
}

}  // namespace kernels
}  // namespace focal
