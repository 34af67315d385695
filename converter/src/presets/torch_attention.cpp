// A bare nn.MultiheadAttention (torch-mha) and an nn.TransformerDecoder on embeddings
// (torch-decoder), by their PyTorch names:
//   torch-mha      `attn.in_proj_weight` [3E, E], `attn.in_proj_bias`, `attn.out_proj.*` (the
//                  `attn.` prefix is optional). Inputs query [batch, q_seq, E], key_value
//                  [batch, seq, E] (keys and values from one source, as in self- and
//                  cross-attention) and key_mask [batch, seq] (1 = attend); output output.
//                  config: embed_dim, num_heads, max_len.
//   torch-decoder  `decoder.layers.{i}.*` (nn.TransformerDecoderLayer: self_attn,
//                  multihead_attn, linear1/2, norm1/2/3) and `decoder.norm` (optional).
//                  Inputs tgt [batch, seq, d] (causal), memory [batch, src_seq, d] and
//                  memory_mask [batch, src_seq]; output output. config: d_model, nhead,
//                  num_layers, dim_feedforward, activation, norm_first, layer_norm_eps,
//                  max_len.
#include "presets/preset.h"
#include "presets/torch_layers.h"

namespace focal {
namespace convert {
namespace {

struct MhaConfig {
  TorchLayerConfig layer;
  int64_t max_len = 0;
};

Result<MhaConfig> read_mha_config(const nlohmann::json& config, const PresetOptions& options) {
  MhaConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.layer.d_model, config_int(config, "embed_dim"));
  FOCAL_ASSIGN_OR_RETURN(c.layer.heads, config_int(config, "num_heads"));
  if (c.layer.heads < 1 || c.layer.d_model % c.layer.heads != 0) {
    return config_refused("embed_dim must be a multiple of num_heads");
  }
  FOCAL_ASSIGN_OR_RETURN(c.max_len, planned_or_config(options, config, "max_len", 512));
  return c;
}

struct DecoderConfig {
  TorchLayerConfig layer;
  int64_t layers = 0, max_len = 0;
};

Result<DecoderConfig> read_decoder_config(const nlohmann::json& config, const PresetOptions& options) {
  DecoderConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.layer, torch_layer_config(config));
  FOCAL_ASSIGN_OR_RETURN(c.layers, config_int(config, "num_layers"));
  FOCAL_ASSIGN_OR_RETURN(c.max_len, planned_or_config(options, config, "max_len", 512));
  return c;
}

// Keys and values from one input [B, S, D] (`source`) with its key mask [B, S] (`mask`).
TorchKeys masked_source(GraphBuilder& b, const char* source, const char* mask,
                        const std::vector<GraphBuilder::Dim>& dims) {
  TorchKeys keys;
  keys.memory = b.input(source, DType::kF32, dims);
  keys.key_mask = b.input(mask, DType::kI32, {dims[0], dims[1]});
  return keys;
}

}  // namespace

Status build_torch_mha(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const MhaConfig settings, named_config(options, read_mha_config(config, options)));
  const TorchLayerConfig& c = settings.layer;
  const int64_t max_len = settings.max_len;
  // Under `attn.` (a module holding it), or at the top (a bare nn.MultiheadAttention).
  const std::string prefix = b.weights().has("in_proj_weight") ? "" : "attn";
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim Q{max_len, b.symbol("q_seq", max_len)}, S{max_len, b.symbol("seq", max_len)};
  const GraphBuilder::Dim E{c.d_model, -1};
  const int query = b.input("query", DType::kF32, {B, Q, E});
  const TorchKeys keys = masked_source(b, "key_value", "key_mask", {B, S, E});
  torch_attention(b, prefix, query, c, keys, b.output("output", {B, Q, E}));
  return b.status();
}

Status build_torch_decoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const DecoderConfig settings,
                         named_config(options, read_decoder_config(config, options)));
  const TorchLayerConfig& c = settings.layer;
  const int64_t layers = settings.layers, max_len = settings.max_len;
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim T{max_len, b.symbol("seq", max_len)}, S{max_len, b.symbol("src_seq", max_len)};
  const GraphBuilder::Dim D{c.d_model, -1};
  const int tgt = b.input("tgt", DType::kF32, {B, T, D});
  const TorchKeys cross = masked_source(b, "memory", "memory_mask", {B, S, D});
  TorchKeys self;
  self.causal = true;
  const bool final_norm = b.weights().has("decoder.norm.weight");
  const int out = b.output("output", {B, T, D});
  int h = tgt;
  for (int64_t l = 0; l < layers; ++l) {
    const bool last = l + 1 == layers;
    h = torch_decoder_layer(b, "decoder.layers." + std::to_string(l), h, self, cross, c,
                            last && !final_norm ? out : -1);
  }
  if (final_norm) torch_layernorm(b, "decoder.norm", h, c, out);
  return b.status();
}

}  // namespace convert
}  // namespace focal
