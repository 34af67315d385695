// DistilBERT (transformers' modeling_distilbert.py, config keys dim, n_layers, n_heads,
// hidden_dim, activation): word + position embeddings (no token types) and LayerNorm,
// BERT's post-LN layers under "transformer.layer.N" with modules q_lin/k_lin/v_lin/
// out_lin, sa_layer_norm, ffn.lin1/lin2 and output_layer_norm (eps 1e-12 throughout).
// DistilBertForSequenceClassification's head: pre_classifier, ReLU, classifier over
// position 0. A sinusoidal position table (sinusoidal_pos_embds) is in the checkpoint
// like a learned one. Inputs input_ids, attention_mask [batch, seq]; outputs
// last_hidden_state, logits, sentence_embedding.
#include "presets/bert_layers.h"

namespace focal {
namespace convert {
namespace {

const EncoderLayerNames kDistilBertLayerNames = {
    "attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin",
    "sa_layer_norm",   "ffn.lin1",        "ffn.lin2",        "output_layer_norm"};

const EncoderSizeNames kDistilBertSizeNames = {"dim",        "n_layers",
                                               "transformer.layer.", ".attention.q_lin.weight",
                                               "hidden_dim", "transformer.layer.0.ffn.lin1.weight"};

Status read_config_only(const nlohmann::json& j, const PresetOptions& options, BertConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "n_heads", 12, options));
  FOCAL_ASSIGN_OR_RETURN(c->activation, bert_activation(j, "activation"));
  c->epsilon = 1e-12f;  // every DistilBERT LayerNorm's, fixed in the modeling code
  return check_head_count(j, "n_heads", "dim", *c);
}

Result<BertConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  FOCAL_ASSIGN_OR_RETURN(BertConfig c,
                         read_encoder_config(w, j, options, kDistilBertSizeNames, read_config_only));
  FOCAL_RETURN_IF_ERROR(read_label_count(w, j, "classifier.weight", &c));
  return c;
}

}  // namespace

Status build_distilbert(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "embeddings.word_embeddings.weight"));  // "distilbert." or none
  FOCAL_ASSIGN_OR_RETURN(const BertConfig c, read_config(b.weights(), config, options));
  store_label_names(b.writer(), c.label_names);
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq,
                         planned_seq_within(options, c.positions, 512, "max_position_embeddings"));
  const EncoderInputs in = encoder_inputs(b, options, max_seq, c.hidden);
  const int words = b.param("embeddings.word_embeddings.weight", {c.vocab, c.hidden});
  const int positions = b.param("embeddings.position_embeddings.weight", {c.positions, c.hidden});
  const int embedded = b.embedding("embeddings", in.ids, words, positions, -1, -1, 1.0f);
  const int h = encoder_stack(b, options, embedded, in, c, "transformer.layer.", kDistilBertLayerNames);
  if (c.labels > 0) {
    const int cls = b.pool("classifier.cls", h, -1, fb::PoolMode_Cls);
    const int pre = bert_linear(b, "pre_classifier", cls, c.hidden, c.hidden, fb::Activation_Relu);
    bert_linear(b, "classifier", pre, c.labels, c.hidden, fb::Activation_None, b.output("logits", {in.B, {c.labels, -1}}));
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
