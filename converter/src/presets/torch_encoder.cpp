// A classifier around nn.TransformerEncoder, in the common style: `embedding`
// (nn.Embedding), `pos_embedding` (learned positions, optional), `encoder`
// (nn.TransformerEncoder, with `encoder.norm` when present), pooling (CLS: position 0,
// or the mean over valid positions) and `classifier` (nn.Linear, optional).
// config.json keys: vocab_size, d_model, nhead, num_layers, dim_feedforward,
// activation, norm_first, layer_norm_eps, max_len, pooling, num_classes.
#include "presets/preset.h"
#include "presets/torch_layers.h"

namespace focal {
namespace convert {

namespace {

struct EncoderConfig {
  TorchLayerConfig layer;
  int64_t vocab = 0, layers = 0, max_len = 0, classes = 0;
  bool mean_pooling = false;
};

Result<EncoderConfig> read_config(const nlohmann::json& config, bool classifier) {
  EncoderConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.layer, torch_layer_config(config));
  FOCAL_ASSIGN_OR_RETURN(c.vocab, config_int(config, "vocab_size"));
  FOCAL_ASSIGN_OR_RETURN(c.layers, config_int(config, "num_layers"));
  FOCAL_ASSIGN_OR_RETURN(c.max_len, config_int(config, "max_len", 512));
  FOCAL_ASSIGN_OR_RETURN(const std::string pooling, config_string(config, "pooling", "cls"));
  if (pooling != "cls" && pooling != "mean") return config_refused("pooling must be cls or mean");
  c.mean_pooling = pooling == "mean";
  if (classifier) {
    FOCAL_ASSIGN_OR_RETURN(c.classes, config_int(config, "num_classes"));
  }
  return c;
}

}  // namespace

Status build_torch_encoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  const bool classifier = b.weights().has("classifier.weight");
  FOCAL_ASSIGN_OR_RETURN(const EncoderConfig settings, named_config(options, read_config(config, classifier)));
  const TorchLayerConfig& c = settings.layer;
  const int64_t vocab = settings.vocab, layers = settings.layers, max_len = settings.max_len;
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq, planned_seq_within(options, max_len, 512, "max_len"));
  const int batch = b.symbol("batch", options.max_batch);
  const int seq = b.symbol("seq", max_seq);
  const GraphBuilder::Dim B{options.max_batch, batch}, S{max_seq, seq}, D{c.d_model, -1};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  const int mask = b.input("attention_mask", DType::kI32, {B, S});
  const int table = b.param("embedding.weight", {vocab, c.d_model});
  const int positions = b.optional_param("pos_embedding.weight", {max_len, c.d_model});
  int h = b.embedding("embedding", ids, table, positions, -1, -1, 1.0f);
  const bool final_norm = b.weights().has("encoder.norm.weight");
  const int last_hidden = b.output("last_hidden_state", {B, S, D});
  for (int64_t l = 0; l < layers; ++l) {
    const bool last = l + 1 == layers;
    h = torch_encoder_layer(b, "encoder.layers." + std::to_string(l), h, mask, c,
                            last && !final_norm ? last_hidden : -1);
  }
  if (final_norm) h = torch_layernorm(b, "encoder.norm", h, c, last_hidden);
  if (classifier) {
    const int64_t classes = settings.classes;
    const int pooled = b.pool("pool", h, settings.mean_pooling ? mask : -1,
                              settings.mean_pooling ? fb::PoolMode_Mean : fb::PoolMode_Cls);
    const int w = b.param("classifier.weight", {classes, c.d_model});
    const int bias = b.optional_param("classifier.bias", {classes});
    b.dense("classifier", pooled, w, bias, fb::Activation_None, b.output("logits", {B, {classes, -1}}));
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
