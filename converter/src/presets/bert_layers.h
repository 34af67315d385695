// What BERT and the encoders laid out like it (RoBERTa, XLM-R, DistilBERT) share: the
// config they read, the post-LN encoder layer under each family's module names, the
// LayerNorm and Linear of HF's names, and the sentence-transformers tail every one of
// them can end in. bert.cpp, roberta.cpp and distilbert.cpp build from these.
#pragma once

#include <string>
#include <vector>

#include "presets/hf_config.h"

namespace focal {
namespace convert {

struct BertConfig : HfSizes {
  int64_t positions = 0, type_vocab = 0, labels = 0;
  float epsilon = 0.0f;
  fb::Activation activation = fb::Activation_None;
  std::vector<std::string> label_names;  // id2label, by id; empty without one
};

// One post-LN encoder layer's modules, relative to the layer's prefix ("encoder.layer.3").
struct EncoderLayerNames {
  const char* query;
  const char* key;
  const char* value;
  const char* attention_out;
  const char* attention_norm;  // LayerNorm(attention_out + x)
  const char* up;              // the feed-forward's first Linear, then the activation
  const char* down;
  const char* output_norm;     // LayerNorm(down + attention_norm's output)
};
extern const EncoderLayerNames kBertLayerNames;  // BERT, RoBERTa, XLM-R

// hidden_act (or DistilBERT's "activation") as the engine's activation.
Result<fb::Activation> bert_activation(const nlohmann::json& j, const char* key);
// A head count (config key `key`) that divides the hidden size (`hidden_key`), else an
// error saying how to give it.
Status check_head_count(const nlohmann::json& j, const char* key, const char* hidden_key, const BertConfig& c);
// Where a family's config keys and tensors state its sizes.
struct EncoderSizeNames {
  const char* hidden_key;  // the width of embeddings.word_embeddings.weight
  const char* layers_key;
  const char* layer_prefix;  // blocks "{layer_prefix}{i}{layer_anchor}"
  const char* layer_anchor;
  const char* intermediate_key;
  const char* intermediate_tensor;  // its rows
};
extern const EncoderSizeNames kBertSizeNames;
// Vocab, hidden, positions, layers, intermediate size from the tensors (config keys,
// when present, must agree) and id2label; then, through `config_only`, what only the
// config tells (its errors named "preset NAME: config: ...").
using ConfigOnlyReader = Status (*)(const nlohmann::json& j, const PresetOptions& options, BertConfig* c);
Result<BertConfig> read_encoder_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options,
                                       const EncoderSizeNames& names, ConfigOnlyReader config_only);
// BERT's config.json and tensors (under the prefix the caller set): the above with
// BERT's names, token types, and heads, epsilon and activation from the config.
Result<BertConfig> read_bert_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options);
// c->labels from the classifier's last Linear `head` when the checkpoint has it,
// checked against id2label / num_labels; 0 without one.
Status read_label_count(const WeightSource& w, const nlohmann::json& j, const std::string& head, BertConfig* c);

int bert_layernorm(GraphBuilder& b, const std::string& prefix, int x, const BertConfig& c, int out = -1);
int bert_linear(GraphBuilder& b, const std::string& prefix, int x, int64_t out_features, int64_t in_features,
                fb::Activation act = fb::Activation_None, int out = -1);
// x [B, S, hidden] -> the layer's output [B, S, hidden]; mask [B, S] marks valid keys.
int post_ln_encoder_layer(GraphBuilder& b, const std::string& p, int x, int mask, const BertConfig& c,
                          const EncoderLayerNames& names, int out = -1);

// The planned sizes and inputs of an encoder over input_ids [B, S].
struct EncoderInputs {
  GraphBuilder::Dim B, S, H;
  int ids = -1, mask = -1;
};
EncoderInputs encoder_inputs(GraphBuilder& b, const PresetOptions& options, int64_t max_seq, int64_t hidden);
// From the summed embeddings [B, S, hidden]: embeddings.LayerNorm, the layers
// `{layers_prefix}{i}` (the last writes output last_hidden_state) and the
// sentence-transformers tail when options ask for it (sentence_embedding.h); returns
// last_hidden_state.
int encoder_stack(GraphBuilder& b, const PresetOptions& options, int embedded, const EncoderInputs& in,
                  const BertConfig& c, const std::string& layers_prefix, const EncoderLayerNames& names);
// BertPooler when the checkpoint has pooler.dense: tanh(dense(h[:, 0])) as output
// pooler_output [B, hidden]; -1 without one.
int bert_pooler(GraphBuilder& b, int h, const EncoderInputs& in, const BertConfig& c);

}  // namespace convert
}  // namespace focal
