// nn.TransformerEncoder, found under any prefix (presets/module_prefix.h), with its sizes
// read from its tensors (presets/torch_sizes.h):
//   torch-transformer-encoder  the bare module on embeddings, by PyTorch's names: src
//                              [batch, seq, d_model] and src_key_padding_mask [batch,
//                              seq] (1 = padding, 0 = token, as PyTorch's True = pad;
//                              optional, as in PyTorch) -> output [batch, seq, d_model],
//                              after the optional `norm`;
//                              also one nn.TransformerEncoderLayer saved alone.
//   torch-encoder              a classifier around one, in the common style: `embedding`
//                              (nn.Embedding), `pos_embedding` (learned positions,
//                              optional), the encoder (any attribute name), pooling (CLS:
//                              position 0, or the mean over valid positions) and
//                              `classifier` (nn.Linear, optional), all beside the encoder.
//                              Inputs input_ids and attention_mask (1 = token; optional:
//                              unset, every position is a token).
// The config gives what no tensor tells: nhead, activation, norm_first, layer_norm_eps,
// and for the classifier `pooling` (cls, mean); max_len without learned positions.
#include "presets/preset.h"
#include "presets/torch_layers.h"
#include "presets/torch_sizes.h"

namespace focal {
namespace convert {
namespace {

// The module holding an encoder at `stack` ("module.encoder." -> "module.").
std::string wrapper_of(const std::string& stack) {
  if (stack.empty()) return stack;
  const size_t dot = stack.find_last_of('.', stack.size() - 2);
  return dot == std::string::npos ? std::string() : stack.substr(0, dot + 1);
}

struct ClassifierSizes {
  int64_t vocab = 0, max_len = 0, classes = 0;
  bool mean_pooling = false;
};

// The embedding table [vocab, d_model] beside the encoder, or an error pointing to the
// bare preset when there is none.
Result<int64_t> vocab_of(WeightSource& weights, const PresetOptions& options, const std::string& table,
                         const TorchStack& s) {
  if (!weights.has(table)) {
    return preset_refused(options, "no embedding table '" + table + "' beside the nn.TransformerEncoder at '" +
                                       s.prefix + "'; a bare nn.TransformerEncoder on embeddings converts with "
                                       "--preset torch-transformer-encoder");
  }
  FOCAL_ASSIGN_OR_RETURN(const Matrix m, weights.get_any(table));
  if (m.shape.size() != 2 || m.shape[1] != s.layer.d_model) {
    return preset_refused(options, "tensor '" + table + "' is " + shape_text(m.shape) + ", expected [vocab, " +
                                       std::to_string(s.layer.d_model) + "] (d_model from " + s.d_model_source + ")");
  }
  return m.shape[0];
}

// Rows of an optional 2-D tensor (0 when absent).
Result<int64_t> rows_of(WeightSource& weights, const std::string& name) {
  if (!weights.has(name)) return int64_t{0};
  FOCAL_ASSIGN_OR_RETURN(const Matrix m, weights.get_any(name));
  return m.shape.empty() ? int64_t{0} : m.shape[0];
}

Result<ClassifierSizes> classifier_sizes(WeightSource& weights, const nlohmann::json& config,
                                         const PresetOptions& options, const std::string& wrapper, const TorchStack& s) {
  ClassifierSizes c;
  FOCAL_ASSIGN_OR_RETURN(c.vocab, vocab_of(weights, options, wrapper + "embedding.weight", s));
  FOCAL_ASSIGN_OR_RETURN(c.max_len, rows_of(weights, wrapper + "pos_embedding.weight"));
  FOCAL_ASSIGN_OR_RETURN(c.classes, rows_of(weights, wrapper + "classifier.weight"));
  FOCAL_RETURN_IF_ERROR(config_agrees(config, options, "vocab_size", c.vocab, wrapper + "embedding.weight"));
  FOCAL_RETURN_IF_ERROR(config_agrees(config, options, "num_classes", c.classes, wrapper + "classifier.weight"));
  if (c.max_len > 0) {
    FOCAL_RETURN_IF_ERROR(config_agrees(config, options, "max_len", c.max_len, wrapper + "pos_embedding.weight"));
  } else {
    FOCAL_ASSIGN_OR_RETURN(c.max_len, config_int(config, "max_len", 512));
  }
  FOCAL_ASSIGN_OR_RETURN(const std::string pooling, config_string(config, "pooling", "cls"));
  if (pooling != "cls" && pooling != "mean") return config_error(options, config_refused("pooling must be cls or mean"));
  c.mean_pooling = pooling == "mean";
  return c;
}

// The encoder stack the checkpoint holds, found and read.
Result<TorchStack> encoder_stack(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options) {
  return find_torch_stack(weights, config, options, false, "num_layers");
}

void classifier_head(GraphBuilder& b, const std::string& wrapper, const ClassifierSizes& sizes, int h, int mask,
                     const GraphBuilder::Dim& batch, int64_t d_model) {
  const int pooled = b.pool("pool", h, sizes.mean_pooling ? mask : -1,
                            sizes.mean_pooling ? fb::PoolMode_Mean : fb::PoolMode_Cls);
  const int w = b.param(wrapper + "classifier.weight", {sizes.classes, d_model});
  const int bias = b.optional_param(wrapper + "classifier.bias", {sizes.classes});
  b.dense("classifier", pooled, w, bias, fb::Activation_None, b.output("logits", {batch, {sizes.classes, -1}}));
}

}  // namespace

Status build_torch_encoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TorchStack s, encoder_stack(b.weights(), config, options));
  const std::string wrapper = wrapper_of(s.prefix);
  FOCAL_ASSIGN_OR_RETURN(const ClassifierSizes sizes, classifier_sizes(b.weights(), config, options, wrapper, s));
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq, planned_seq_within(options, sizes.max_len, 512, "max_len"));
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_seq, b.symbol("seq", max_seq)}, D{s.layer.d_model, -1};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  const int mask = b.optional_input("attention_mask", DType::kI32, {B, S}, 1);
  const int table = b.param(wrapper + "embedding.weight", {sizes.vocab, s.layer.d_model});
  const int positions = b.optional_param(wrapper + "pos_embedding.weight", {sizes.max_len, s.layer.d_model});
  const int x = b.embedding("embedding", ids, table, positions, -1, -1, 1.0f);
  const int h = torch_encoder_stack(b, s, x, mask, b.output("last_hidden_state", {B, S, D}));
  if (sizes.classes > 0) classifier_head(b, wrapper, sizes, h, mask, B, s.layer.d_model);
  return b.status();
}

Status build_torch_transformer_encoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TorchStack s, encoder_stack(b.weights(), config, options));
  const Result<int64_t> max_seq = planned_or_config(options, config, "max_len", 512);
  if (!max_seq.ok()) return config_error(options, max_seq.status());
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_seq.value(), b.symbol("seq", max_seq.value())}, D{s.layer.d_model, -1};
  const int src = b.input("src", DType::kF32, {B, S, D});
  const int padding = torch_padding_mask_input(b, "src_key_padding_mask", B, S);
  const int mask = torch_valid_mask(b, padding, "src_key_padding_mask", B, S);
  torch_encoder_stack(b, s, src, mask, b.output("output", {B, S, D}));
  return b.status();
}

}  // namespace convert
}  // namespace focal
