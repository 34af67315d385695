// {"op": "attention"}: fused multi-head attention with its projections, optional RoPE,
// a key mask, cross-attention memory and a KV cache (MultiHeadAttentionOptions).
#include "json/json_integer.h"
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

struct Features {
  int64_t in, q, kv, kv_in;  // x's width, H*Dh, Hkv*Dh, memory's width
};

int* weight_slot(ModelWriter::MultiHeadAttentionSpec* s, char part) {
  return part == 'q' ? &s->wq : part == 'k' ? &s->wk : &s->wv;
}
int* bias_slot(ModelWriter::MultiHeadAttentionSpec* s, char part) {
  return part == 'q' ? &s->bq : part == 'k' ? &s->bk : &s->bv;
}

// One fused tensor of Q, K and V rows in the stated order ("qkv", "kvq", ...).
Status fused_projections(const Layer& l, const Features& f, ModelWriter::MultiHeadAttentionSpec* s) {
  const json& fused = l.fields.at("qkv");
  const std::string order = fused.value("order", std::string("qkv"));
  if (order.size() != 3 || order.find('q') == std::string::npos || order.find('k') == std::string::npos ||
      order.find('v') == std::string::npos) {
    return l.fail("qkv order must be a permutation of \"qkv\"");
  }
  const std::string wname = fused.at("weight").get<std::string>();
  FOCAL_SPEC_ASSIGN(const Matrix w, l.dense_weight(wname, f.in));
  if (w.shape[0] != f.q + 2 * f.kv) return l.fail(wname + " must have q + k + v = " + std::to_string(f.q + 2 * f.kv) + " outputs");
  Matrix b;
  if (fused.contains("bias")) {
    Result<Matrix> got = l.c.b.weights().get(fused.at("bias").get<std::string>(), {w.shape[0]});
    if (!got.ok()) return l.fail(got.status().message());
    b = std::move(got.value());
  }
  int64_t row = 0;
  for (char part : order) {
    const int64_t rows = part == 'q' ? f.q : f.kv;
    *weight_slot(s, part) = l.c.b.constant(wname + "." + part, row_slice(w, row, rows));
    if (!b.shape.empty()) *bias_slot(s, part) = l.c.b.constant(wname + ".bias." + part, row_slice(b, row, rows));
    row += rows;
  }
  return Status();
}

// Separate "q", "k" and "v" weights [features, in], each a name or {"weight", "bias"}.
Status separate_projections(const Layer& l, const Features& f, ModelWriter::MultiHeadAttentionSpec* s) {
  for (const char part : {'q', 'k', 'v'}) {
    const char key[] = {part, '\0'};
    if (!l.fields.contains(key)) return l.fail("needs \"qkv\" or \"q\", \"k\" and \"v\" projections");
    const json& p = l.fields.at(key);
    const std::string wname = p.is_string() ? p.get<std::string>() : p.at("weight").get<std::string>();
    FOCAL_SPEC_ASSIGN(const Matrix w, l.dense_weight(wname, part == 'q' ? f.in : f.kv_in));
    if (w.shape[0] != (part == 'q' ? f.q : f.kv)) return l.fail(wname + " has the wrong number of outputs for the heads");
    *weight_slot(s, part) = l.c.b.constant(wname, w);
    if (p.is_object() && p.contains("bias")) *bias_slot(s, part) = l.c.b.param(p.at("bias").get<std::string>(), {w.shape[0]});
  }
  return Status();
}

Status heads(const Layer& l, int64_t in, ModelWriter::MultiHeadAttentionSpec* s) {
  s->num_heads = json_int(l.fields.at("heads"), "heads");
  s->num_kv_heads = json_int_or(l.fields, "kv_heads", s->num_heads);
  s->head_dim = json_int_or(l.fields, "head_dim", s->num_heads > 0 ? static_cast<int>(in / s->num_heads) : 0);
  if (s->num_heads < 1 || s->num_kv_heads < 1 || s->head_dim < 1) return l.fail("heads, kv_heads and head_dim must be positive");
  return Status();
}

Status rope(const Layer& l, ModelWriter::MultiHeadAttentionSpec* s) {
  if (!l.fields.contains("rope")) return Status();
  const json& r = l.fields.at("rope");
  const std::string layout = r.value("layout", std::string("half"));
  if (layout != "half" && layout != "interleaved") return l.fail("rope layout must be half or interleaved");
  s->rope = layout == "half" ? fb::RopeLayout_HalfSplit : fb::RopeLayout_Interleaved;
  s->rope_theta = r.value("theta", 10000.0f);
  s->rotary_dim = json_int_or(r, "rotary_dim", 0);
  return Status();
}

// Sets s->wo (and s->bo); *width = the output's width, wo's rows.
Status output_projection(const Layer& l, int64_t q_features, ModelWriter::MultiHeadAttentionSpec* s, int64_t* width) {
  const json& out = l.fields.at("out");
  const std::string name = out.is_string() ? out.get<std::string>() : out.at("weight").get<std::string>();
  FOCAL_SPEC_ASSIGN(const Matrix wo, l.dense_weight(name, q_features));
  s->wo = l.c.b.constant(name, wo);
  *width = wo.shape[0];
  if (out.is_object()) s->bo = Layer{l.c, l.spec, out, l.name}.bias("bias", wo.shape[0]);
  return Status();
}

}  // namespace

Result<int> multi_head_attention_layer(const Layer& l) {
  ModelWriter::MultiHeadAttentionSpec s;
  FOCAL_SPEC_ASSIGN(s.x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(s.memory, l.optional_tensor("memory"));
  FOCAL_SPEC_ASSIGN(s.key_mask, l.optional_tensor("mask"));
  FOCAL_SPEC_ASSIGN(s.relative_bias, l.optional_tensor("relative_bias"));  // a relative_position_bias layer's
  FOCAL_SPEC_ASSIGN(const int64_t in, l.width(s.x));
  FOCAL_RETURN_IF_ERROR(heads(l, in, &s));
  Features f{in, int64_t(s.num_heads) * s.head_dim, int64_t(s.num_kv_heads) * s.head_dim, in};
  if (s.memory >= 0) {
    FOCAL_SPEC_ASSIGN(f.kv_in, l.width(s.memory));
  }
  FOCAL_RETURN_IF_ERROR(l.fields.contains("qkv") ? fused_projections(l, f, &s) : separate_projections(l, f, &s));
  int64_t width = 0;
  FOCAL_RETURN_IF_ERROR(output_projection(l, f.q, &s, &width));
  s.causal = l.fields.value("causal", false);
  s.scale = l.fields.value("scale", 0.0f);
  FOCAL_RETURN_IF_ERROR(rope(l, &s));
  if (l.fields.value("kv_cache", false)) {
    const GraphBuilder::Dim batch = l.c.symbols.at("batch"), context{l.c.symbols.at("seq").size, -1};
    s.k_state = l.c.b.state(l.name + ".k_cache", DType::kF32, {batch, context, {f.kv, -1}});
    s.v_state = l.c.b.state(l.name + ".v_cache", DType::kF32, {batch, context, {f.kv, -1}});
  }
  std::vector<GraphBuilder::Dim> dims = l.c.b.dims(s.x);  // [B, S, width]
  dims.back() = {width, -1};
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(dims));
  return l.c.b.attention(l.name, s, y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
