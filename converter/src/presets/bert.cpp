// BERT (HuggingFace names and config.json): word + position + token type embeddings and
// LayerNorm, post-LN layers with GELU, the tanh pooler over [CLS], and a classifier
// head when the checkpoint has one (BertForSequenceClassification, prefix "bert." or
// any other before "embeddings."). Sizes come from the tensors; config.json gives the
// heads, activation and epsilon (BertConfig's defaults when absent) and id2label.
// Inputs input_ids, attention_mask, token_type_ids [batch, seq]; outputs
// last_hidden_state [batch, seq, hidden], pooler_output [batch, hidden], logits.
#include "presets/hf_config.h"

namespace focal {
namespace convert {
namespace {

struct BertConfig : HfSizes {
  int64_t positions = 0, type_vocab = 0, labels = 0;
  float epsilon = 0.0f;
  fb::Activation activation = fb::Activation_None;
  std::vector<std::string> label_names;  // id2label, by id; empty without one
};

Result<fb::Activation> bert_activation(const nlohmann::json& j) {
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(j, "hidden_act", "gelu"));
  if (act == "gelu") return fb::Activation_GeluErf;
  if (act == "relu") return fb::Activation_Relu;
  if (act == "gelu_new") return fb::Activation_GeluTanh;
  return config_refused("hidden_act " + act + " is not supported (gelu, gelu_new, relu)");
}

// What only the config can tell (heads, activation, epsilon), with BertConfig's
// defaults when absent; relative position embeddings are not built.
Status read_config_only(const nlohmann::json& j, const PresetOptions& options, BertConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "num_attention_heads", 12, options));
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(j, "layer_norm_eps", 1e-12));
  FOCAL_ASSIGN_OR_RETURN(c->activation, bert_activation(j));
  FOCAL_ASSIGN_OR_RETURN(const std::string positions, config_string(j, "position_embedding_type", "absolute"));
  if (positions != "absolute") return config_refused("position_embedding_type " + positions + " is not supported (absolute)");
  if (c->heads < 1 || c->hidden % c->heads != 0) {
    const bool given = j.is_object() && j.contains("num_attention_heads");
    return config_refused("num_attention_heads is " + std::to_string(c->heads) +
                          (given ? "" : " (transformers' default: the config lacks it)") +
                          ", which does not divide hidden_size " + std::to_string(c->hidden) +
                          "; pass the model's head count with --set num_attention_heads=N or in --config config.json");
  }
  return Status();
}

// Sizes from the tensors' shapes; config keys, when present, must agree.
Status read_sizes(const WeightSource& w, const nlohmann::json& j, BertConfig* c) {
  const std::string words = "embeddings.word_embeddings.weight";
  FOCAL_ASSIGN_OR_RETURN(c->vocab, size_from_tensor(w, j, "vocab_size", words, 0));
  FOCAL_ASSIGN_OR_RETURN(c->hidden, size_from_tensor(w, j, "hidden_size", words, 1));
  FOCAL_ASSIGN_OR_RETURN(c->positions, size_from_tensor(w, j, "max_position_embeddings",
                                                        "embeddings.position_embeddings.weight", 0));
  const std::string types = "embeddings.token_type_embeddings.weight";
  c->type_vocab = 0;
  if (w.has(types) || (j.is_object() && j.contains("type_vocab_size"))) {  // else no token_type_ids input
    FOCAL_ASSIGN_OR_RETURN(c->type_vocab, size_from_tensor(w, j, "type_vocab_size", types, 0));
  }
  FOCAL_ASSIGN_OR_RETURN(c->layers, layers_from_tensors(w, j, "num_hidden_layers", "encoder.layer.",
                                                        ".attention.self.query.weight"));
  FOCAL_ASSIGN_OR_RETURN(c->intermediate, size_from_tensor(w, j, "intermediate_size",
                                                           "encoder.layer.0.intermediate.dense.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(c->label_names, hf_label_names(j));
  if (w.has("classifier.weight")) {
    FOCAL_ASSIGN_OR_RETURN(c->labels, size_from_tensor(w, nlohmann::json::object(), "", "classifier.weight", 0));
    FOCAL_RETURN_IF_ERROR(check_label_count(j, c->label_names, "classifier.weight", c->labels));
  }
  return Status();
}

// Sizes first (their errors name the tensor or the config key), then the config's own
// values (errors named "preset bert: config: ...").
Result<BertConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  BertConfig c;
  FOCAL_RETURN_IF_ERROR(read_sizes(w, j, &c));
  const Status config_only = read_config_only(j, options, &c);
  if (!config_only.ok()) return config_error(options, config_only);
  return c;
}

int bert_layernorm(GraphBuilder& b, const std::string& prefix, int x, const BertConfig& c, int out = -1) {
  const int gamma = b.param(prefix + ".weight", {c.hidden});
  const int beta = b.param(prefix + ".bias", {c.hidden});
  return b.layernorm(prefix, x, gamma, beta, c.epsilon, out);
}

int bert_linear(GraphBuilder& b, const std::string& prefix, int x, int64_t out_features, int64_t in_features,
                fb::Activation act = fb::Activation_None, int out = -1) {
  const int w = b.param(prefix + ".weight", {out_features, in_features});
  const int bias = b.param(prefix + ".bias", {out_features});
  return b.dense(prefix, x, w, bias, act, out);
}

int bert_layer(GraphBuilder& b, const std::string& p, int x, int mask, const BertConfig& c, int out) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  const std::string self = p + ".attention.self";
  s.wq = b.param(self + ".query.weight", {c.hidden, c.hidden});
  s.bq = b.param(self + ".query.bias", {c.hidden});
  s.wk = b.param(self + ".key.weight", {c.hidden, c.hidden});
  s.bk = b.param(self + ".key.bias", {c.hidden});
  s.wv = b.param(self + ".value.weight", {c.hidden, c.hidden});
  s.bv = b.param(self + ".value.bias", {c.hidden});
  s.wo = b.param(p + ".attention.output.dense.weight", {c.hidden, c.hidden});
  s.bo = b.param(p + ".attention.output.dense.bias", {c.hidden});
  s.key_mask = mask;
  s.num_heads = s.num_kv_heads = static_cast<int>(c.heads);
  s.head_dim = static_cast<int>(c.hidden / c.heads);
  const int attended = b.attention(p + ".attention", s);
  const int h = bert_layernorm(b, p + ".attention.output.LayerNorm",
                               b.add(p + ".attention.residual", attended, x), c);
  const int up = bert_linear(b, p + ".intermediate.dense", h, c.intermediate, c.hidden, c.activation);
  const int down = bert_linear(b, p + ".output.dense", up, c.hidden, c.intermediate);
  return bert_layernorm(b, p + ".output.LayerNorm", b.add(p + ".output.residual", down, h), c, out);
}

}  // namespace

Status build_bert(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "embeddings.word_embeddings.weight"));  // "bert." or a wrapper's
  FOCAL_ASSIGN_OR_RETURN(const BertConfig c, read_config(b.weights(), config, options));
  store_label_names(b.writer(), c.label_names);
  FOCAL_ASSIGN_OR_RETURN(const int64_t max_seq,
                         planned_seq_within(options, c.positions, 512, "max_position_embeddings"));
  const int batch = b.symbol("batch", options.max_batch);
  const int seq = b.symbol("seq", max_seq);
  const GraphBuilder::Dim B{options.max_batch, batch}, S{max_seq, seq}, H{c.hidden, -1};
  const int ids = b.input("input_ids", DType::kI32, {B, S});
  const int mask = b.input("attention_mask", DType::kI32, {B, S});
  const int types = c.type_vocab > 0 ? b.input("token_type_ids", DType::kI32, {B, S}) : -1;

  const int words = b.param("embeddings.word_embeddings.weight", {c.vocab, c.hidden});
  const int positions = b.param("embeddings.position_embeddings.weight", {c.positions, c.hidden});
  const int segments = types >= 0 ? b.param("embeddings.token_type_embeddings.weight", {c.type_vocab, c.hidden}) : -1;
  int h = b.embedding("embeddings", ids, words, positions, types, segments, 1.0f);
  h = bert_layernorm(b, "embeddings.LayerNorm", h, c);
  const int last_hidden = b.output("last_hidden_state", {B, S, H});
  for (int64_t l = 0; l < c.layers; ++l) {
    h = bert_layer(b, "encoder.layer." + std::to_string(l), h, mask, c, l + 1 == c.layers ? last_hidden : -1);
  }
  if (b.weights().has("pooler.dense.weight")) {
    const int cls = b.pool("pooler.cls", h, -1, fb::PoolMode_Cls);
    const int pooled = bert_linear(b, "pooler.dense", cls, c.hidden, c.hidden, fb::Activation_Tanh,
                                   b.output("pooler_output", {B, H}));
    if (b.weights().has("classifier.weight")) {
      bert_linear(b, "classifier", pooled, c.labels, c.hidden, fb::Activation_None,
                  b.output("logits", {B, {c.labels, -1}}));
    }
  }
  return b.status();
}

}  // namespace convert
}  // namespace focal
