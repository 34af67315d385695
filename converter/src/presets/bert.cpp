// BERT (HuggingFace names and config.json): word + position + token type embeddings and
// LayerNorm, post-LN layers with GELU, the tanh pooler over [CLS], and a classifier
// head when the checkpoint has one (BertForSequenceClassification, prefix "bert." or
// any other before "embeddings."). Sizes come from the tensors; config.json gives the
// heads, activation and epsilon (BertConfig's defaults when absent) and id2label.
// Inputs input_ids, attention_mask, token_type_ids [batch, seq]; outputs
// last_hidden_state [batch, seq, hidden], pooler_output [batch, hidden], logits, and
// sentence_embedding [batch, hidden] for a sentence-transformers folder.
#include "presets/bert_layers.h"

namespace focal {
namespace convert {
namespace {

Result<BertConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  FOCAL_ASSIGN_OR_RETURN(BertConfig c, read_bert_config(w, j, options));
  FOCAL_RETURN_IF_ERROR(read_label_count(w, j, "classifier.weight", &c));
  return c;
}

}  // namespace

Status build_bert(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "embeddings.word_embeddings.weight"));  // "bert." or a wrapper's
  FOCAL_ASSIGN_OR_RETURN(const BertConfig c, read_config(b.weights(), config, options));
  store_label_names(b.writer(), c.label_names);
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq,
                         planned_seq_within(options, c.positions, 512, "max_position_embeddings"));
  const EncoderInputs in = encoder_inputs(b, options, max_seq, c.hidden);
  const int types = c.type_vocab > 0 ? b.input("token_type_ids", DType::kI32, {in.B, in.S}) : -1;

  const int words = b.param("embeddings.word_embeddings.weight", {c.vocab, c.hidden});
  const int positions = b.param("embeddings.position_embeddings.weight", {c.positions, c.hidden});
  const int segments = types >= 0 ? b.param("embeddings.token_type_embeddings.weight", {c.type_vocab, c.hidden}) : -1;
  const int embedded = b.embedding("embeddings", in.ids, words, positions, types, segments, 1.0f);
  const int h = encoder_stack(b, options, embedded, in, c, "encoder.layer.", kBertLayerNames);
  const int pooled = bert_pooler(b, h, in, c);
  if (pooled >= 0 && b.weights().has("classifier.weight")) {
    bert_linear(b, "classifier", pooled, c.labels, c.hidden, fb::Activation_None,
                b.output("logits", {in.B, {c.labels, -1}}));
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
