// Attention over a source in double, one decoder step or one pooled sequence per row
// (focal/attention_scoring.h):
//   additive:      score_j = v . tanh(query_proj + keys[j])
//   Luong dot:     score_j = scale * q . keys[j]
//   Luong general: score_j = scale * q . (W keys[j]),  W [Dq, Dk]
//   concat:        score_j = scale * act(w . [q; keys[j]] + b),  w [1, Dq + Dk], act none or tanh
//   weights = softmax over j < length (0 elsewhere), context = sum_j weights_j values[j].
#include <cmath>
#include <vector>

#include "reference/reference_ops.h"

namespace focal {
namespace reference {
namespace {

// Additive scores of `src` keys rows ([src, units], dense) against one query projection.
void additive_scores(const double* query_proj, const double* keys, const Operand& v, size_t src, size_t units,
                     double* scores) {
  for (size_t j = 0; j < src; ++j) {
    double score = 0.0;
    for (size_t u = 0; u < units; ++u) score += v.at(u) * std::tanh(query_proj[u] + keys[j * units + u]);
    scores[j] = score;
  }
}

// Softmax over the first `length` scores, then context [dim] = sum_j w_j values[j];
// the weights are also written to `weights_out` [src] when not null.
void weigh(double* scores, size_t length, size_t src, const double* values, size_t dim, double* context,
           double* weights_out) {
  softmax_prefix(scores, length, src);
  for (size_t i = 0; i < dim; ++i) {
    double sum = 0.0;
    for (size_t j = 0; j < length; ++j) sum += scores[j] * values[j * dim + i];
    context[i] = sum;
  }
  for (size_t j = 0; weights_out != nullptr && j < src; ++j) weights_out[j] = scores[j];
}

enum ScoreSlot { kQuery = 0, kKeys, kValues, kMask, kW, kB, kV };

// Concat scores of one query row: act(b + w[:Dq] . q + w[Dq:] . keys[j]), times scale.
void concat_scores(const OpContext& c, const double* query, const double* keys, size_t src, double* scores) {
  const fb::ScoreAttentionOptions& o = *c.op.options_as_ScoreAttentionOptions();
  const size_t dq = c.in(kQuery).dim(1), dk = c.in(kKeys).dim(2);
  const Operand& w = c.in(kW);
  double state_part = c.has_input(kB) ? c.in(kB).at(0) : 0.0;
  for (size_t a = 0; a < dq; ++a) state_part += w.at(a) * query[a];
  for (size_t j = 0; j < src; ++j) {
    double pre = state_part;
    for (size_t i = 0; i < dk; ++i) pre += w.at(dq + i) * keys[j * dk + i];
    const double score = o.activation() == fb::Activation_Tanh ? std::tanh(pre) : pre;
    scores[j] = static_cast<double>(o.scale()) * score;
  }
}

// Luong scores of one query row against `src` key rows.
void luong_scores(const OpContext& c, const double* query, const double* keys, size_t src, double* scores) {
  const fb::ScoreAttentionOptions& o = *c.op.options_as_ScoreAttentionOptions();
  const size_t dq = c.in(kQuery).dim(1), dk = c.in(kKeys).dim(2);
  const bool general = o.kind() == fb::ScoreKind_General;
  for (size_t j = 0; j < src; ++j) {
    double score = 0.0;
    for (size_t a = 0; a < dq; ++a) {
      double projected = 0.0;  // (W keys[j])[a], or keys[j][a] for dot
      if (general) {
        for (size_t i = 0; i < dk; ++i) projected += c.in(kW).at(a * dk + i) * keys[j * dk + i];
      } else {
        projected = keys[j * dk + a];
      }
      score += query[a] * projected;
    }
    scores[j] = static_cast<double>(o.scale()) * score;
  }
}

}  // namespace

// ScoreAttention: query [B, Dq], keys [B, S, Dk], values [B, S, Dv], mask [B, S];
// additive w packed [Dk, Dq], b [Dk], v [Dk]; concat w [1, Dq + Dk], b [1]. Outputs: context [B, Dv], weights [B, S].
Status score_attention_op(const OpContext& c) {
  const Operand& keys = c.in(kKeys);
  const size_t batch = keys.dim(0), src = keys.dim(1), dk = keys.dim(2), dv = c.in(kValues).dim(2);
  std::vector<int64_t> lengths(batch, static_cast<int64_t>(src));
  if (c.has_input(kMask)) FOCAL_RETURN_IF_ERROR(mask_lengths(c.in(kMask), batch, src, "mask", &lengths));
  const fb::ScoreKind kind = c.op.options_as_ScoreAttentionOptions()->kind();
  const bool additive = kind == fb::ScoreKind_Additive;
  std::vector<double> query_proj(batch * dk), scores(src);
  const size_t dq = c.in(kQuery).dim(1);
  if (additive) dense_rows(c, c.in(kW), &c.in(kB), c.in(kQuery).values, dq, batch, query_proj.data(), dk);
  for (size_t b = 0; b < batch; ++b) {
    const double* key_rows = keys.values + b * src * dk;
    if (additive) {
      additive_scores(&query_proj[b * dk], key_rows, c.in(kV), src, dk, scores.data());
    } else if (kind == fb::ScoreKind_Concat) {
      concat_scores(c, c.in(kQuery).values + b * dq, key_rows, src, scores.data());
    } else {
      luong_scores(c, c.in(kQuery).values + b * dq, key_rows, src, scores.data());
    }
    double* weights = c.has_output(1) ? c.outputs[1].values + b * src : nullptr;
    weigh(scores.data(), static_cast<size_t>(lengths[b]), src, c.in(kValues).values + b * src * dv, dv,
          c.outputs[0].values + b * dv, weights);
  }
  return Status();
}

// AttentionPool: x [B, S, D], mask [B, S], W packed [A, D], b [A], v [A]:
// y[b] = sum_s softmax_s(v . tanh(W x[b, s] + b)) x[b, s]; weights [B, S] optional.
Status attention_pool_op(const OpContext& c) {
  enum Slot { kX = 0, kPoolMask, kPoolW, kPoolB, kPoolV };
  const Operand& x = c.in(kX);
  const size_t batch = x.dim(0), seq = x.dim(1), dim = x.dim(2), units = c.in(kPoolW).dim(0);
  std::vector<int64_t> lengths(batch, static_cast<int64_t>(seq));
  if (c.has_input(kPoolMask)) FOCAL_RETURN_IF_ERROR(mask_lengths(c.in(kPoolMask), batch, seq, "mask", &lengths));
  std::vector<double> keys(batch * seq * units), query(units, 0.0), scores(seq);
  dense_rows(c, c.in(kPoolW), nullptr, x.values, dim, batch * seq, keys.data(), units);
  for (size_t u = 0; c.has_input(kPoolB) && u < units; ++u) query[u] = c.in(kPoolB).at(u);
  for (size_t b = 0; b < batch; ++b) {
    additive_scores(query.data(), &keys[b * seq * units], c.in(kPoolV), seq, units, scores.data());
    double* weights = c.has_output(1) ? c.outputs[1].values + b * seq : nullptr;
    weigh(scores.data(), static_cast<size_t>(lengths[b]), seq, x.values + b * seq * dim, dim,
          c.outputs[0].values + b * dim, weights);
  }
  return Status();
}

}  // namespace reference
}  // namespace focal
