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

struct Dims {
  GraphBuilder::Dim batch, src, tgt, width;
};

// Stage encode: the encoder over src, then each decoder layer's cross-attention K and V
// over the memory, kept as states with the source mask.
std::vector<TorchKeys> encode_stage(GraphBuilder& b, const TransformerConfig& settings, const Dims& d, int src,
                                    int src_mask) {
  const TorchLayerConfig& c = settings.layer;
  b.writer().begin_stage("encode");
  int memory = src;
  for (int64_t l = 0; l < settings.encoder_layers; ++l) {
    memory = torch_encoder_layer(b, "encoder.layers." + std::to_string(l), memory, src_mask, c);
  }
  memory = torch_layernorm(b, "encoder.norm", memory, c);
  const int kept_mask = b.copy("src_mask.keep", src_mask, b.state("src_mask.state", DType::kI32, {d.batch, d.src}));
  std::vector<TorchKeys> cross(static_cast<size_t>(settings.decoder_layers));
  for (int64_t l = 0; l < settings.decoder_layers; ++l) {
    const std::string p = "decoder.layers." + std::to_string(l) + ".multihead_attn";
    TorchKeys& keys = cross[static_cast<size_t>(l)];
    keys.precomputed = true;
    keys.key_mask = kept_mask;
    keys.k_state = torch_project_keys(b, p, 1, memory, c, b.state(p + ".k", DType::kF32, {d.batch, d.src, d.width}));
    keys.v_state = torch_project_keys(b, p, 2, memory, c, b.state(p + ".v", DType::kF32, {d.batch, d.src, d.width}));
  }
  return cross;
}

// Stage decode: the decoder over tgt with a causal KV cache per layer.
void decode_stage(GraphBuilder& b, const TransformerConfig& settings, const Dims& d, int tgt,
                  const std::vector<TorchKeys>& cross) {
  b.writer().begin_stage("decode");
  int h = tgt;
  const GraphBuilder::Dim context{settings.max_tgt, -1};
  for (int64_t l = 0; l < settings.decoder_layers; ++l) {
    const std::string p = "decoder.layers." + std::to_string(l);
    TorchKeys self;
    self.causal = true;
    self.k_state = b.state(p + ".self_attn.k_cache", DType::kF32, {d.batch, context, d.width});
    self.v_state = b.state(p + ".self_attn.v_cache", DType::kF32, {d.batch, context, d.width});
    h = torch_decoder_layer(b, p, h, self, cross[static_cast<size_t>(l)], settings.layer);
  }
  torch_layernorm(b, "decoder.norm", h, settings.layer, b.output("output", {d.batch, d.tgt, d.width}));
}

}  // namespace

Status build_torch_transformer(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TransformerConfig settings, named_config(options, read_config(config, options)));
  if (b.weights().has("transformer.encoder.layers.0.self_attn.in_proj_weight")) b.weights().set_prefix("transformer.");
  Dims d;
  d.batch = {options.max_batch, b.symbol("batch", options.max_batch)};
  d.src = {settings.max_src, b.symbol("src_seq", settings.max_src)};
  d.tgt = {settings.max_tgt, b.symbol("seq", settings.max_tgt)};
  d.width = {settings.layer.d_model, -1};
  const int src = b.input("src", DType::kF32, {d.batch, d.src, d.width});
  const int src_mask = b.input("src_mask", DType::kI32, {d.batch, d.src});
  const int tgt = b.input("tgt", DType::kF32, {d.batch, d.tgt, d.width});
  const std::vector<TorchKeys> cross = encode_stage(b, settings, d, src, src_mask);
  decode_stage(b, settings, d, tgt, cross);
  return b.status();
}

}  // namespace convert
}  // namespace focal
