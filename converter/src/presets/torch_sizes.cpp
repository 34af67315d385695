#include "presets/torch_sizes.h"

#include "presets/module_prefix.h"

namespace focal {
namespace convert {
namespace {

bool has_value(const nlohmann::json& config, const char* key) {
  return config.is_object() && config.contains(key) && !config.at(key).is_null();
}

// The shape of a checkpoint tensor (read once here; the layers read it again by name).
Result<std::vector<int64_t>> shape_of(WeightSource& weights, const std::string& name) {
  FOCAL_ASSIGN_OR_RETURN(const Matrix m, weights.get_any(name));
  return m.shape;
}

// The width E of a packed projection [3E, E] (nn.MultiheadAttention's in_proj_weight).
Result<int64_t> packed_width(WeightSource& weights, const PresetOptions& options, const std::string& name,
                             std::string* source) {
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> shape, shape_of(weights, name));
  *source = name + " " + shape_text(shape);
  if (shape.size() != 2 || shape[0] != 3 * shape[1] || shape[1] < 1) {
    return preset_refused(options, "tensor '" + *source + "' is not nn.MultiheadAttention's packed [3 * E, E]");
  }
  return shape[1];
}

// Layer `index` against layer 0: the same width (from `part`'s in_proj_weight) and
// feed-forward size (linear1.weight [dim_feedforward, d_model]).
Status check_layer(WeightSource& weights, const PresetOptions& options, const TorchStack& s, int64_t index,
                   const char* part) {
  const std::string layer = s.layer_name(index);
  std::string source;
  FOCAL_ASSIGN_OR_RETURN(const int64_t width, packed_width(weights, options,
                                                           torch_join(layer, std::string(part) + ".in_proj_weight"), &source));
  if (width != s.layer.d_model) {
    return preset_refused(options, "layer '" + layer + "' has d_model " +
                                       std::to_string(width) + " (" + source + "), expected " +
                                       std::to_string(s.layer.d_model) + " as in " + s.d_model_source +
                                       ": every layer of a stack has the same size");
  }
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> up, shape_of(weights, torch_join(layer, "linear1.weight")));
  const std::vector<int64_t> expected{s.layer.feedforward, s.layer.d_model};
  if (up != expected) {
    return preset_refused(options, "layer '" + layer + "': linear1.weight is " +
                                       shape_text(up) + ", expected " + shape_text(expected) +
                                       " ([dim_feedforward, d_model] as in layer 0)");
  }
  return Status();
}

Result<fb::Activation> torch_activation(const nlohmann::json& config) {
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(config, "activation", "relu"));
  if (act == "relu") return fb::Activation_Relu;
  if (act == "gelu") return fb::Activation_GeluErf;
  return config_refused("activation must be \"relu\" or \"gelu\" (as nn.TransformerEncoderLayer takes), not \"" +
                        act + "\"");
}

}  // namespace

ModuleSearch torch_encoder_search() {
  return {"nn.TransformerEncoder",
          {"layers.0.self_attn.in_proj_weight", "layers.0.linear1.weight"},
          {"layers.0.multihead_attn.in_proj_weight"}};
}

ModuleSearch torch_decoder_search() {
  return {"nn.TransformerDecoder", {"layers.0.multihead_attn.in_proj_weight", "layers.0.self_attn.in_proj_weight"}, {}};
}

ModuleSearch torch_encoder_layer_search() {
  return {"nn.TransformerEncoderLayer",
          {"self_attn.in_proj_weight", "linear1.weight", "norm2.weight"},
          {"multihead_attn.in_proj_weight"}};
}

ModuleSearch torch_decoder_layer_search() {
  return {"nn.TransformerDecoderLayer", {"multihead_attn.in_proj_weight", "self_attn.in_proj_weight", "norm3.weight"}, {}};
}

ModuleSearch torch_transformer_search() {
  return {"nn.Transformer",
          {"encoder.layers.0.self_attn.in_proj_weight", "decoder.layers.0.multihead_attn.in_proj_weight"},
          {}};
}

ModuleSearch torch_attention_search() { return {"nn.MultiheadAttention", {"in_proj_weight", "out_proj.weight"}, {}}; }

Status infer_torch_attention(WeightSource& weights, const PresetOptions& options, const std::string& prefix,
                             TorchLayerConfig* c, std::string* source) {
  if (weights.has(prefix + "bias_k") || weights.has(prefix + "q_proj_weight")) {
    return preset_refused(options, "nn.MultiheadAttention '" + prefix +
                                       "' has add_bias_kv or kdim/vdim unlike embed_dim, which the engine does not run");
  }
  FOCAL_ASSIGN_OR_RETURN(c->d_model, packed_width(weights, options, prefix + "in_proj_weight", source));
  c->bias = weights.has(prefix + "in_proj_bias");
  return Status();
}

Result<TorchStack> infer_torch_stack(WeightSource& weights, const PresetOptions& options, const std::string& prefix,
                                     bool decoder, bool single_layer) {
  TorchStack s;
  s.prefix = prefix;
  s.single_layer = single_layer;
  const auto attention_of = [&](int64_t l) { return torch_join(s.layer_name(l), "self_attn.in_proj_weight"); };
  while (weights.has(attention_of(s.layers)) && !(single_layer && s.layers == 1)) ++s.layers;
  if (s.layers == 0) return preset_refused(options, "no tensor '" + attention_of(0) + "'");
  FOCAL_RETURN_IF_ERROR(infer_torch_attention(weights, options, torch_join(s.layer_name(0), "self_attn."), &s.layer,
                                              &s.d_model_source));
  FOCAL_ASSIGN_OR_RETURN(const std::vector<int64_t> up, shape_of(weights, torch_join(s.layer_name(0), "linear1.weight")));
  s.layer.feedforward = up.size() == 2 ? up[0] : 0;
  for (int64_t l = 0; l < s.layers; ++l) {
    FOCAL_RETURN_IF_ERROR(check_layer(weights, options, s, l, "self_attn"));
    if (decoder) FOCAL_RETURN_IF_ERROR(check_layer(weights, options, s, l, "multihead_attn"));
  }
  s.final_norm = !single_layer && weights.has(prefix + "norm.weight");
  return s;
}

Result<TorchStack> find_torch_stack(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options,
                                    bool decoder, const char* layers_key) {
  const ModuleSearch stack = decoder ? torch_decoder_search() : torch_encoder_search();
  const ModuleSearch layer = decoder ? torch_decoder_layer_search() : torch_encoder_layer_search();
  // A layer saved alone only when no stack is there: each layer of a stack is one too.
  const bool single = module_candidates(weights, stack).empty() && !module_candidates(weights, layer).empty();
  FOCAL_ASSIGN_OR_RETURN(const std::string prefix, find_module_prefix(weights, config, options, single ? layer : stack));
  return read_torch_stack(weights, config, options, prefix, decoder, layers_key, single);
}

Result<TorchStack> read_torch_stack(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options,
                                    const std::string& prefix, bool decoder, const char* layers_key, bool single_layer) {
  FOCAL_ASSIGN_OR_RETURN(TorchStack s, infer_torch_stack(weights, options, prefix, decoder, single_layer));
  FOCAL_RETURN_IF_ERROR(read_torch_hyperparameters(config, options, TorchNames{}, s.d_model_source, &s.layer));
  FOCAL_RETURN_IF_ERROR(config_agrees(config, options, layers_key, s.layers,
                                      "the count of " + prefix + "layers.{i}"));
  return s;
}

Status config_agrees(const nlohmann::json& config, const PresetOptions& options, const char* key, int64_t inferred,
                     const std::string& source) {
  if (!has_value(config, key)) return Status();
  const Result<int64_t> given = config_int(config, key);
  if (!given.ok()) return config_error(options, given.status());
  if (given.value() == inferred) return Status();
  return preset_refused(options, std::string("config ") + key + " " + std::to_string(given.value()) +
                                     " disagrees with the checkpoint: " + source + " gives " +
                                     std::to_string(inferred) + " (the key can be left out)");
}

Status read_torch_hyperparameters(const nlohmann::json& config, const PresetOptions& options, const TorchNames& names,
                                  const std::string& width_source, TorchLayerConfig* c) {
  const std::string heads = names.heads;
  if (!has_value(config, names.heads)) {
    return preset_refused(options, "the checkpoint cannot tell " + heads + " (the number of attention heads); pass it with --set " +
                                       heads + "=N or \"" + heads + "\" in --config FILE.json");
  }
  Status read = [&]() -> Status {
    FOCAL_ASSIGN_OR_RETURN(c->heads, config_int(config, names.heads));
    FOCAL_ASSIGN_OR_RETURN(c->activation, torch_activation(config));
    FOCAL_ASSIGN_OR_RETURN(c->norm_first, config_bool(config, "norm_first", false));
    FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(config, "layer_norm_eps", 1e-5));
    FOCAL_ASSIGN_OR_RETURN(const bool batch_first, config_bool(config, "batch_first", true));
    (void)batch_first;  // only PyTorch's layout: inputs here are [batch, seq, features] either way
    return Status();
  }();
  if (!read.ok()) return config_error(options, read);
  if (c->heads < 1 || c->d_model % c->heads != 0) {
    return preset_refused(options, heads + " " + std::to_string(c->heads) + " does not divide " + names.width + " " +
                                       std::to_string(c->d_model) + " (from " + width_source + ")");
  }
  FOCAL_RETURN_IF_ERROR(config_agrees(config, options, names.width, c->d_model, width_source));
  return c->feedforward > 0 ? config_agrees(config, options, "dim_feedforward", c->feedforward, "linear1.weight")
                            : Status();
}

}  // namespace convert
}  // namespace focal
