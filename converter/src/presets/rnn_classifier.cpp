// The attention-pooled RNN classifier (the Keras IMDB-style model), as PyTorch modules:
// `embedding`, `lstm` (nn.LSTM, bidirectional or not; or `gru`), `attention.W`
// (Linear(dirs*H, A)), `attention.v` (Linear(A, 1, bias=False)), `classifier`
// (Linear(dirs*H, C)). score_s = v . tanh(W h_s), softmax over the valid positions,
// pooled = sum_s a_s h_s, then the classifier with a sigmoid (C == 1) or a softmax.
// Inputs input_ids, attention_mask [batch, seq]; outputs logits and probabilities
// [batch, C] and the pooling weights, attention [batch, seq].
#include "presets/preset.h"

namespace focal {
namespace convert {

Status build_rnn_classifier(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  const int64_t embedding = config_int(config, "embedding"), hidden = config_int(config, "hidden");
  const int64_t units = config_int(config, "attention_units"), classes = config_int(config, "num_classes");
  const int64_t vocab = config_int(config, "vocab_size");
  const int64_t max_seq = options.max_seq > 0 ? options.max_seq : config_int(config, "max_len", 256);
  const std::string rnn = b.weights().has("gru.weight_ih_l0") ? "gru" : "lstm";
  const fb::RecurrentCell cell = rnn == "gru" ? fb::RecurrentCell_Gru : fb::RecurrentCell_Lstm;
  const int64_t g = (rnn == "gru" ? 3 : 4) * hidden;
  const bool bidirectional = b.weights().has(rnn + ".weight_ih_l0_reverse");
  const int64_t width = (bidirectional ? 2 : 1) * hidden;

  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim S{max_seq, b.symbol("seq", max_seq)};
  const GraphBuilder::Dim C{classes, -1};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  const int mask = b.input("attention_mask", DType::kI32, {B, S});
  const int x = b.embedding("embedding", ids, b.param("embedding.weight", {vocab, embedding}), -1, -1, -1, 1.0f);
  ModelWriter::RecurrentSpec s;
  s.x = x;
  s.mask = mask;
  s.cell = cell;
  s.hidden = static_cast<int>(hidden);
  s.w_ih = b.param(rnn + ".weight_ih_l0", {g, embedding});
  s.w_hh = b.param(rnn + ".weight_hh_l0", {g, hidden});
  s.b_ih = b.optional_param(rnn + ".bias_ih_l0", {g});
  s.b_hh = b.optional_param(rnn + ".bias_hh_l0", {g});
  if (bidirectional) {
    s.w_ih_r = b.param(rnn + ".weight_ih_l0_reverse", {g, embedding});
    s.w_hh_r = b.param(rnn + ".weight_hh_l0_reverse", {g, hidden});
    s.b_ih_r = b.optional_param(rnn + ".bias_ih_l0_reverse", {g});
    s.b_hh_r = b.optional_param(rnn + ".bias_hh_l0_reverse", {g});
  }
  const int states = b.activation(rnn, {B, S, {width, -1}});
  if (b.status().ok()) b.writer().add_recurrent(rnn, s, {states});

  Matrix v = b.fetch("attention.v.weight", {1, units});
  v.shape = {units};
  const int w = b.param("attention.W.weight", {units, width});
  const int bias = b.optional_param("attention.W.bias", {units});
  const int v_tensor = b.constant("attention.v.weight", v);
  const int pooled = b.activation("attention.pooled", {B, {width, -1}});
  const int weights = b.output("attention", {B, S});
  if (b.status().ok()) b.writer().add_attention_pool("attention", states, mask, w, bias, v_tensor, pooled, weights);

  const int logits = b.dense("classifier", pooled, b.param("classifier.weight", {classes, width}),
                             b.optional_param("classifier.bias", {classes}), fb::Activation_None,
                             b.output("logits", {B, C}));
  const int probabilities = b.output("probabilities", {B, C});
  if (classes == 1) {
    // The sigmoid rides on a second pass of the classifier's GEMM: cheaper than an op.
    b.dense("classifier.sigmoid", pooled, b.param("classifier.weight", {classes, width}),
            b.optional_param("classifier.bias", {classes}), fb::Activation_Sigmoid, probabilities);
  } else if (b.status().ok()) {
    b.writer().add_softmax("probabilities", logits, probabilities);
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
