// RoBERTa and XLM-R (transformers' modeling_roberta.py / modeling_xlm_roberta.py): BERT's
// layers under "roberta.", with positions counted from padding_idx + 1. HF numbers the
// positions with create_position_ids_from_input_ids: padding_idx + the running count of
// non-pad tokens, so on the engine's inputs (the valid tokens first, then padding) the
// valid token s sits at padding_idx + 1 + s: the position table is stored from row
// padding_idx + 1 on. (Padded positions, which HF gives row padding_idx, get the next
// rows instead: no valid position attends to them, and sentence pooling skips them.)
// A token type vocabulary of one row (RoBERTa's) is folded into those rows, so the
// model has no token_type_ids input. Heads: RobertaClassificationHead (dense, tanh,
// out_proj over position 0), or RobertaModel's pooler.
// Inputs input_ids, attention_mask [batch, seq] (token_type_ids with more than one
// type); outputs last_hidden_state, pooler_output, logits, sentence_embedding.
#include "presets/bert_layers.h"

namespace focal {
namespace convert {
namespace {

struct RobertaConfig : BertConfig {
  int64_t padding_idx = 1;
};

Result<RobertaConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  RobertaConfig c;
  FOCAL_ASSIGN_OR_RETURN(static_cast<BertConfig&>(c), read_bert_config(w, j, options));
  FOCAL_ASSIGN_OR_RETURN(c.padding_idx, named_config(options, config_int(j, "pad_token_id", 1)));
  if (c.padding_idx < 0 || c.padding_idx + 1 >= c.positions) {
    return config_error(options, config_refused("pad_token_id " + std::to_string(c.padding_idx) +
                                                " leaves no position rows after padding_idx + 1 in a table of " +
                                                std::to_string(c.positions)));
  }
  FOCAL_RETURN_IF_ERROR(read_label_count(w, j, "classifier.out_proj.weight", &c));
  return c;
}

// Rows padding_idx + 1 ... of the position table, plus the single token type's row
// when there is one type (the sum HF forms for every token).
int position_rows(GraphBuilder& b, const RobertaConfig& c) {
  Matrix table = b.fetch("embeddings.position_embeddings.weight", {c.positions, c.hidden});
  if (table.shape.empty()) return -1;
  Matrix rows = row_slice(table, c.padding_idx + 1, c.positions - c.padding_idx - 1);
  if (c.type_vocab == 1) {
    const Matrix type = b.fetch("embeddings.token_type_embeddings.weight", {1, c.hidden});
    if (type.shape.empty()) return -1;
    for (size_t i = 0; i < rows.values.size(); ++i) rows.values[i] += type.values[i % type.values.size()];
  }
  return b.constant("embeddings.position_embeddings.from_padding_idx", rows);
}

void classification_head(GraphBuilder& b, int h, const EncoderInputs& in, const RobertaConfig& c) {
  const int cls = b.pool("classifier.cls", h, -1, fb::PoolMode_Cls);
  const int dense = bert_linear(b, "classifier.dense", cls, c.hidden, c.hidden, fb::Activation_Tanh);
  bert_linear(b, "classifier.out_proj", dense, c.labels, c.hidden, fb::Activation_None,
              b.output("logits", {in.B, {c.labels, -1}}));
}

}  // namespace

Status build_roberta(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "embeddings.word_embeddings.weight"));  // "roberta." or none
  FOCAL_ASSIGN_OR_RETURN(const RobertaConfig c, read_config(b.weights(), config, options));
  store_label_names(b.writer(), c.label_names);
  const int64_t usable = c.positions - c.padding_idx - 1;  // 512 of RoBERTa-base's 514 rows
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq,
                         planned_seq_within(options, usable, 512, "max_position_embeddings - pad_token_id - 1"));
  const EncoderInputs in = encoder_inputs(b, options, max_seq, c.hidden);
  const bool typed = c.type_vocab > 1;
  const int types = typed ? b.input("token_type_ids", DType::kI32, {in.B, in.S}) : -1;

  const int words = b.param("embeddings.word_embeddings.weight", {c.vocab, c.hidden});
  const int positions = position_rows(b, c);
  const int segments = typed ? b.param("embeddings.token_type_embeddings.weight", {c.type_vocab, c.hidden}) : -1;
  const int embedded = b.embedding("embeddings", in.ids, words, positions, types, segments, 1.0f);
  const int h = encoder_stack(b, options, embedded, in, c, "encoder.layer.", kBertLayerNames);
  bert_pooler(b, h, in, c);
  if (c.labels > 0) classification_head(b, h, in, c);
  return b.status();
}

}  // namespace convert
}  // namespace focal
