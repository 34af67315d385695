// nn.Transformer (encoder-decoder) on embeddings, under the attribute `transformer`:
// inputs src [batch, src_seq, d] with src_mask [batch, src_seq] (1 = token, 0 = pad) and
// tgt [batch, seq, d]; output `output` [batch, seq, d]. Two stages:
//   encode: the encoder stack and its final norm, then every decoder layer's
//           cross-attention K and V over the memory, kept as states (once per source);
//   decode: the decoder stack over tgt with a causal KV cache, appended on every run,
//           so tgt can come all at once or one position at a time.
// config.json keys: d_model, nhead, num_encoder_layers, num_decoder_layers,
// dim_feedforward, activation, norm_first, layer_norm_eps, max_src_len, max_tgt_len.
#include "presets/preset.h"
#include "presets/torch_layers.h"

namespace focal {
namespace convert {
namespace {

struct TransformerConfig {
  TorchLayerConfig layer;
  int64_t encoder_layers = 0, decoder_layers = 0, max_src = 0, max_tgt = 0;
};

Result<TransformerConfig> read_config(const nlohmann::json& config, const PresetOptions& options) {
  TransformerConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.layer, torch_layer_config(config));
  FOCAL_ASSIGN_OR_RETURN(c.encoder_layers, config_int(config, "num_encoder_layers", 6));
  FOCAL_ASSIGN_OR_RETURN(c.decoder_layers, config_int(config, "num_decoder_layers", 6));
  FOCAL_ASSIGN_OR_RETURN(c.max_src, planned_or_config(options, config, "max_src_len", 256));
  FOCAL_ASSIGN_OR_RETURN(c.max_tgt, planned_or_config(options, config, "max_tgt_len", 256));
  return c;
}

}  // namespace

Status build_torch_transformer(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TransformerConfig settings, named_config(options, read_config(config, options)));
  const TorchLayerConfig& c = settings.layer;
  const int64_t encoder_layers = settings.encoder_layers, decoder_layers = settings.decoder_layers;
  const int64_t max_src = settings.max_src, max_tgt = settings.max_tgt;
  if (b.weights().has("transformer.encoder.layers.0.self_attn.in_proj_weight")) b.weights().set_prefix("transformer.");

  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_src, b.symbol("src_seq", max_src)};
  const GraphBuilder::Dim T{max_tgt, b.symbol("seq", max_tgt)};
  const GraphBuilder::Dim D{c.d_model, -1};
  const int src = b.input("src", DType::kF32, {B, S, D});
  const int src_mask = b.input("src_mask", DType::kI32, {B, S});
  const int tgt = b.input("tgt", DType::kF32, {B, T, D});

  b.writer().begin_stage("encode");
  int memory = src;
  for (int64_t l = 0; l < encoder_layers; ++l) {
    memory = torch_encoder_layer(b, "encoder.layers." + std::to_string(l), memory, src_mask, c);
  }
  memory = torch_layernorm(b, "encoder.norm", memory, c);
  const int kept_mask = b.copy("src_mask.keep", src_mask, b.state("src_mask.state", DType::kI32, {B, S}));
  std::vector<TorchKeys> cross(static_cast<size_t>(decoder_layers));
  for (int64_t l = 0; l < decoder_layers; ++l) {
    const std::string p = "decoder.layers." + std::to_string(l) + ".multihead_attn";
    TorchKeys& keys = cross[static_cast<size_t>(l)];
    keys.precomputed = true;
    keys.key_mask = kept_mask;
    keys.k_state = torch_project_keys(b, p, 1, memory, c, b.state(p + ".k", DType::kF32, {B, S, D}));
    keys.v_state = torch_project_keys(b, p, 2, memory, c, b.state(p + ".v", DType::kF32, {B, S, D}));
  }

  b.writer().begin_stage("decode");
  int h = tgt;
  const GraphBuilder::Dim context{max_tgt, -1};
  for (int64_t l = 0; l < decoder_layers; ++l) {
    const std::string p = "decoder.layers." + std::to_string(l);
    TorchKeys self;
    self.causal = true;
    self.k_state = b.state(p + ".self_attn.k_cache", DType::kF32, {B, context, D});
    self.v_state = b.state(p + ".self_attn.v_cache", DType::kF32, {B, context, D});
    h = torch_decoder_layer(b, p, h, self, cross[static_cast<size_t>(l)], c);
  }
  torch_layernorm(b, "decoder.norm", h, c, b.output("output", {B, T, D}));
  return b.status();
}

}  // namespace convert
}  // namespace focal
