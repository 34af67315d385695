#include "presets/torch_layers.h"

#include "presets/preset.h"

namespace focal {
namespace convert {

Result<int64_t> planned_or_config(const PresetOptions& options, const nlohmann::json& config, const char* key,
                                  int64_t fallback) {
  if (options.max_seq > 0) return options.max_seq;
  return config_int(config, key, fallback);
}

int torch_padding_mask_input(GraphBuilder& b, const std::string& name, const GraphBuilder::Dim& batch,
                             const GraphBuilder::Dim& seq) {
  return b.optional_input(name, DType::kI32, {batch, seq}, 0);
}

int torch_valid_mask(GraphBuilder& b, int padding_mask, const std::string& name, const GraphBuilder::Dim& batch,
                     const GraphBuilder::Dim& seq) {
  const std::string valid = name + ".valid";
  fb::ScaleOptionsT flip;  // 1 - mask: a pad (1) becomes 0, a token (0) becomes 1
  flip.scale = -1.0f;
  flip.shift = 1.0f;
  return b.elementwise(valid, flip, padding_mask, b.activation(valid, {batch, seq}, DType::kI32));
}

int torch_layernorm(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c, int out) {
  const int gamma = b.param(prefix + ".weight", {c.d_model});
  // nn.LayerNorm(bias=False) adds nothing: a zero shift.
  const int beta = c.bias ? b.param(prefix + ".bias", {c.d_model})
                          : b.constant(prefix + ".zero_bias", Matrix{{c.d_model}, std::vector<float>(size_t(c.d_model))});
  return b.layernorm(prefix, x, gamma, beta, c.epsilon, out);
}

TorchNaming bart_naming() {
  TorchNaming n;
  n.packed_projections = false;
  n.self_norm = "self_attn_layer_norm";
  n.cross_attention = "encoder_attn";
  n.cross_norm = "encoder_attn_layer_norm";
  n.encoder_ffn_norm = n.decoder_ffn_norm = "final_layer_norm";
  n.up = "fc1";
  n.down = "fc2";
  return n;
}

std::string torch_join(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

namespace {

// Part `part` (0 q, 1 k, 2 v) of the attention's projections: sliced from the packed
// in_proj weight and bias, or the part's own q_proj / k_proj / v_proj.
void in_proj(GraphBuilder& b, const std::string& prefix, int part, const TorchLayerConfig& c, int* w,
             int* bias) {
  const int64_t d = c.d_model;
  const char* names[] = {".q_proj", ".k_proj", ".v_proj"};
  const std::string own = torch_join(prefix, names[part] + 1);
  if (!c.names.packed_projections) {
    *w = b.param(own + ".weight", {d, d});
    if (c.bias) *bias = b.param(own + ".bias", {d});
    return;
  }
  const Matrix weight = b.fetch(torch_join(prefix, "in_proj_weight"), {3 * d, d});
  const Matrix biases = c.bias ? b.fetch(torch_join(prefix, "in_proj_bias"), {3 * d}) : Matrix{};
  if (!b.status().ok()) return;
  *w = b.constant(own + ".weight", row_slice(weight, part * d, d));
  if (c.bias) *bias = b.constant(own + ".bias", row_slice(biases, part * d, d));
}

}  // namespace

int torch_attention(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c,
                    const TorchKeys& keys, int out) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  in_proj(b, prefix, 0, c, &s.wq, &s.bq);
  if (!keys.precomputed) {
    in_proj(b, prefix, 1, c, &s.wk, &s.bk);
    in_proj(b, prefix, 2, c, &s.wv, &s.bv);
  }
  s.wo = b.param(torch_join(prefix, "out_proj.weight"), {c.d_model, c.d_model});
  s.bo = c.bias ? b.param(torch_join(prefix, "out_proj.bias"), {c.d_model}) : -1;
  s.memory = keys.memory;
  s.key_mask = keys.key_mask;
  s.k_state = keys.k_state;
  s.v_state = keys.v_state;
  s.causal = keys.causal;
  s.num_heads = static_cast<int>(c.heads);
  s.num_kv_heads = s.num_heads;
  s.head_dim = static_cast<int>(c.d_model / c.heads);
  return b.attention(prefix.empty() ? "attention" : prefix, s, out);
}

int torch_project_keys(GraphBuilder& b, const std::string& prefix, int part, int memory,
                       const TorchLayerConfig& c, int out) {
  int w = -1, bias = -1;
  in_proj(b, prefix, part, c, &w, &bias);
  return b.dense(prefix + (part == 1 ? ".k_cache" : ".v_cache"), memory, w, bias,
                 fb::Activation_None, out);
}

int torch_feedforward(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c) {
  const std::string up = torch_join(prefix, c.names.up), down = torch_join(prefix, c.names.down);
  const int w1 = b.param(up + ".weight", {c.feedforward, c.d_model});
  const int b1 = c.bias ? b.param(up + ".bias", {c.feedforward}) : -1;
  const int w2 = b.param(down + ".weight", {c.d_model, c.feedforward});
  const int b2 = c.bias ? b.param(down + ".bias", {c.d_model}) : -1;
  const int hidden = b.dense(up, x, w1, b1, c.activation);
  return b.dense(down, hidden, w2, b2);
}

// x + f(x) for pre-LN (f sees norm(x)), norm(x + f(x)) for post-LN.
namespace {
template <typename Block>
int residual(GraphBuilder& b, const std::string& norm, int x, const TorchLayerConfig& c, Block block,
             int out) {
  if (c.norm_first) {
    const int y = block(torch_layernorm(b, norm, x, c));
    return b.add(norm + ".residual", x, y, out);
  }
  const int sum = b.add(norm + ".residual", x, block(x));
  return torch_layernorm(b, norm, sum, c, out);
}
}  // namespace

int torch_encoder_layer(GraphBuilder& b, const std::string& prefix, int x, int key_mask,
                        const TorchLayerConfig& c, int out) {
  TorchKeys keys;
  keys.key_mask = key_mask;
  const int h = residual(b, torch_join(prefix, c.names.self_norm), x, c,
                         [&](int in) { return torch_attention(b, torch_join(prefix, "self_attn"), in, c, keys); }, -1);
  return residual(b, torch_join(prefix, c.names.encoder_ffn_norm), h, c,
                  [&](int in) { return torch_feedforward(b, prefix, in, c); }, out);
}

int torch_encoder_stack(GraphBuilder& b, const TorchStack& s, int x, int key_mask, int out) {
  int h = x;
  for (int64_t l = 0; l < s.layers; ++l) {
    const bool last = l + 1 == s.layers && !s.final_norm;
    h = torch_encoder_layer(b, s.layer_name(l), h, key_mask, s.layer, last ? out : -1);
  }
  return s.final_norm ? torch_layernorm(b, s.prefix + "norm", h, s.layer, out) : h;
}

int torch_decoder_layer(GraphBuilder& b, const std::string& prefix, int x, const TorchKeys& self,
                        const TorchKeys& cross, const TorchLayerConfig& c, int out) {
  const int h1 = residual(b, torch_join(prefix, c.names.self_norm), x, c,
                          [&](int in) { return torch_attention(b, torch_join(prefix, "self_attn"), in, c, self); }, -1);
  const int h2 = residual(
      b, torch_join(prefix, c.names.cross_norm), h1, c,
      [&](int in) { return torch_attention(b, torch_join(prefix, c.names.cross_attention), in, c, cross); }, -1);
  return residual(b, torch_join(prefix, c.names.decoder_ffn_norm), h2, c, [&](int in) { return torch_feedforward(b, prefix, in, c); },
                  out);
}

}  // namespace convert
}  // namespace focal
