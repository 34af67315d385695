// Attention that is not a fused multi-head block: {"op": "dot_product_attention"} over
// projected q, k, v (AttentionOptions), {"op": "score_attention"}: one query per row
// against a sequence of keys (ScoreAttentionOptions), and {"op": "attention_pool"}: a
// learned pooling of a sequence (AttentionPoolOptions). The last two may also output
// their weights [B, S] under the name "weights_output" gives.
#include "json/json_integer.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

// The attention weights [B, S] as a tensor named by "weights_output"; -1 when absent.
Result<int> weights_output(const Layer& l, GraphBuilder::Dim batch, GraphBuilder::Dim seq) {
  return l.extra_output("weights_output", {batch, seq});
}

Result<fb::ScoreKind> score_kind(const Layer& l) {
  const std::string score = l.text_or("score", "dot");
  if (score == "additive") return fb::ScoreKind_Additive;
  if (score == "dot") return fb::ScoreKind_Dot;
  if (score == "general") return fb::ScoreKind_General;
  if (score == "concat") return fb::ScoreKind_Concat;
  return l.fail("score must be additive, dot, general or concat");
}

struct Scoring {
  int w = -1, b = -1, v = -1;
  fb::Activation activation = fb::Activation_None;
};

// Concat: one nn.Linear(dq + dk, 1) over [query; key_j], weight [1, dq + dk] as stored
// (the query's columns first), bias [1] optional, then `activation` none or tanh.
Result<Scoring> concat_weights(const Layer& l, int64_t dq, int64_t dk) {
  Scoring s;
  FOCAL_SPEC_ASSIGN(s.activation, l.activation(l.text_or("activation", "none")));
  if (s.activation != fb::Activation_None && s.activation != fb::Activation_Tanh) {
    return l.fail("a concat score's activation must be none or tanh");
  }
  s.w = l.c.b.param(l.text("weight"), {1, dq + dk});
  s.b = l.bias("bias", 1);
  return s;
}

// Additive: W [units, Dq] (a dense weight) with keys already of width units, then
// v [units]; general: W [Dq, Dk] row-major; concat: w [1, Dq + Dk]; dot: none, Dq = Dk.
Result<Scoring> scoring_weights(const Layer& l, fb::ScoreKind kind, int64_t dq, int64_t dk) {
  Scoring s;
  if (kind == fb::ScoreKind_Dot) {
    if (dq != dk) return l.fail("dot scores need the query as wide as the keys");
    return s;
  }
  if (kind == fb::ScoreKind_General) {
    s.w = l.c.b.param(l.text("weight"), {dq, dk});
    return s;
  }
  if (kind == fb::ScoreKind_Concat) return concat_weights(l, dq, dk);
  const std::string name = l.text("weight");
  FOCAL_SPEC_ASSIGN(const Matrix w, l.dense_weight(name, dq));
  if (w.shape[0] != dk) return l.fail(name + " must have as many outputs as the keys' width");
  s.w = l.c.b.constant(name, w);
  s.b = l.bias("bias", dk);
  FOCAL_SPEC_ASSIGN(s.v, l.vector_param(l.text("v"), dk));
  return s;
}

}  // namespace

Result<int> attention_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int q, l.tensor("q"));
  FOCAL_SPEC_ASSIGN(const int k, l.tensor("k"));
  FOCAL_SPEC_ASSIGN(const int v, l.tensor("v"));
  FOCAL_SPEC_ASSIGN(const int64_t q_width, l.width(q));
  const int heads = json_int(l.fields.at("heads"), "heads");
  const int kv_heads = json_int_or(l.fields, "kv_heads", heads);
  const int head_dim = json_int_or(l.fields, "head_dim", heads > 0 ? static_cast<int>(q_width / heads) : 0);
  if (heads < 1 || kv_heads < 1 || head_dim < 1) return l.fail("heads, kv_heads and head_dim must be positive");
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(q)));
  if (l.c.b.status().ok()) {
    l.c.b.writer().add_attention(l.name, q, k, v, y, heads, kv_heads, head_dim, l.fields.value("causal", false),
                                 l.fields.value("scale", 0.0f));
  }
  return y;
}

Result<int> score_attention_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int query, l.tensor("query"));
  FOCAL_SPEC_ASSIGN(const int keys, l.tensor("keys"));
  FOCAL_SPEC_ASSIGN(const int values, l.has("values") ? l.tensor("values") : Result<int>(keys));
  FOCAL_SPEC_ASSIGN(const int mask, l.optional_tensor("mask"));
  FOCAL_SPEC_ASSIGN(const fb::ScoreKind kind, score_kind(l));
  std::vector<GraphBuilder::Dim> q, k, v;
  if (!l.c.b.has_rank(l.name, query, 2, &q) || !l.c.b.has_rank(l.name, keys, 3, &k) ||
      !l.c.b.has_rank(l.name, values, 3, &v)) {
    return -1;
  }
  FOCAL_SPEC_ASSIGN(const Scoring s, scoring_weights(l, kind, q[1].size, k[2].size));
  FOCAL_SPEC_ASSIGN(const int context, l.output_tensor({q[0], v[2]}));
  FOCAL_SPEC_ASSIGN(const int weights, weights_output(l, k[0], k[1]));
  if (l.c.b.status().ok()) {
    l.c.b.writer().add_score_attention(l.name, kind, l.fields.value("scale", 1.0f), query, keys, values, mask, s.w,
                                       s.b, s.v, context, weights, s.activation);
  }
  return context;
}

Result<int> attention_pool_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const int mask, l.optional_tensor("mask"));
  std::vector<GraphBuilder::Dim> d;
  if (!l.c.b.has_rank(l.name, x, 3, &d)) return -1;  // [B, S, D] -> [B, D]
  const std::string name = l.text("weight");
  FOCAL_SPEC_ASSIGN(const Matrix w, l.dense_weight(name, d[2].size));
  const int weight = l.c.b.constant(name, w);
  const int bias = l.bias("bias", w.shape[0]);
  FOCAL_SPEC_ASSIGN(const int v, l.vector_param(l.text("v"), w.shape[0]));
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor({d[0], d[2]}));
  FOCAL_SPEC_ASSIGN(const int weights, weights_output(l, d[0], d[1]));
  if (l.c.b.status().ok()) l.c.b.writer().add_attention_pool(l.name, x, mask, weight, bias, v, y, weights);
  return y;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
