#include "presets/bert_layers.h"

#include "presets/sentence_embedding.h"

namespace focal {
namespace convert {

const EncoderLayerNames kBertLayerNames = {
    "attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
    "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"};

Result<fb::Activation> bert_activation(const nlohmann::json& j, const char* key) {
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(j, key, "gelu"));
  if (act == "gelu") return fb::Activation_GeluErf;
  if (act == "relu") return fb::Activation_Relu;
  if (act == "gelu_new") return fb::Activation_GeluTanh;
  return config_refused(std::string(key) + " " + act + " is not supported (gelu, gelu_new, relu)");
}

Status check_head_count(const nlohmann::json& j, const char* key, const char* hidden_key, const BertConfig& c) {
  if (c.heads >= 1 && c.hidden % c.heads == 0) return Status();
  const bool given = j.is_object() && j.contains(key);
  return config_refused(std::string(key) + " is " + std::to_string(c.heads) +
                        (given ? "" : " (transformers' default: the config lacks it)") +
                        ", which does not divide " + hidden_key + " " + std::to_string(c.hidden) +
                        "; pass the model's head count with --set " + key + "=N or in --config config.json");
}

namespace {

// What only the config can tell (heads, activation, epsilon), with BertConfig's
// defaults when absent; relative position embeddings are not built.
Status read_config_only(const nlohmann::json& j, const PresetOptions& options, BertConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "num_attention_heads", 12, options));
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(j, "layer_norm_eps", 1e-12));
  FOCAL_ASSIGN_OR_RETURN(c->activation, bert_activation(j, "hidden_act"));
  FOCAL_ASSIGN_OR_RETURN(const std::string positions, config_string(j, "position_embedding_type", "absolute"));
  if (positions != "absolute") return config_refused("position_embedding_type " + positions + " is not supported (absolute)");
  return check_head_count(j, "num_attention_heads", "hidden_size", *c);
}

// BERT's token types: a token_type_ids input only when the checkpoint (or config) has them.
Status read_token_types(const WeightSource& w, const nlohmann::json& j, BertConfig* c) {
  const std::string types = "embeddings.token_type_embeddings.weight";
  c->type_vocab = 0;
  if (!w.has(types) && !(j.is_object() && j.contains("type_vocab_size"))) return Status();
  FOCAL_ASSIGN_OR_RETURN(c->type_vocab, size_from_tensor(w, j, "type_vocab_size", types, 0));
  return Status();
}

Status read_sizes(const WeightSource& w, const nlohmann::json& j, const EncoderSizeNames& names, BertConfig* c) {
  const std::string words = "embeddings.word_embeddings.weight";
  FOCAL_ASSIGN_OR_RETURN(c->vocab, size_from_tensor(w, j, "vocab_size", words, 0));
  FOCAL_ASSIGN_OR_RETURN(c->hidden, size_from_tensor(w, j, names.hidden_key, words, 1));
  FOCAL_ASSIGN_OR_RETURN(c->positions, size_from_tensor(w, j, "max_position_embeddings",
                                                        "embeddings.position_embeddings.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(c->layers, layers_from_tensors(w, j, names.layers_key, names.layer_prefix, names.layer_anchor));
  FOCAL_ASSIGN_OR_RETURN(c->intermediate, size_from_tensor(w, j, names.intermediate_key, names.intermediate_tensor, 0));
  FOCAL_ASSIGN_OR_RETURN(c->label_names, hf_label_names(j));
  return Status();
}

}  // namespace

const EncoderSizeNames kBertSizeNames = {"hidden_size",       "num_hidden_layers",
                                         "encoder.layer.",    ".attention.self.query.weight",
                                         "intermediate_size", "encoder.layer.0.intermediate.dense.weight"};

// Sizes first (their errors name the tensor or the config key), then the config's own
// values (errors named "preset NAME: config: ...").
Result<BertConfig> read_encoder_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options,
                                       const EncoderSizeNames& names, ConfigOnlyReader config_only) {
  BertConfig c;
  FOCAL_RETURN_IF_ERROR(read_sizes(w, j, names, &c));
  const Status read = config_only(j, options, &c);
  if (!read.ok()) return config_error(options, read);
  return c;
}

Result<BertConfig> read_bert_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  FOCAL_ASSIGN_OR_RETURN(BertConfig c, read_encoder_config(w, j, options, kBertSizeNames, read_config_only));
  FOCAL_RETURN_IF_ERROR(read_token_types(w, j, &c));
  return c;
}

Status read_label_count(const WeightSource& w, const nlohmann::json& j, const std::string& head, BertConfig* c) {
  if (!w.has(head)) return Status();
  FOCAL_ASSIGN_OR_RETURN(c->labels, size_from_tensor(w, nlohmann::json::object(), "", head, 0));
  return check_label_count(j, c->label_names, head, c->labels);
}

int bert_layernorm(GraphBuilder& b, const std::string& prefix, int x, const BertConfig& c, int out) {
  const int gamma = b.param(prefix + ".weight", {c.hidden});
  const int beta = b.param(prefix + ".bias", {c.hidden});
  return b.layernorm(prefix, x, gamma, beta, c.epsilon, out);
}

int bert_linear(GraphBuilder& b, const std::string& prefix, int x, int64_t out_features, int64_t in_features,
                fb::Activation act, int out) {
  const int w = b.param(prefix + ".weight", {out_features, in_features});
  const int bias = b.param(prefix + ".bias", {out_features});
  return b.dense(prefix, x, w, bias, act, out);
}

int post_ln_encoder_layer(GraphBuilder& b, const std::string& p, int x, int mask, const BertConfig& c,
                          const EncoderLayerNames& names, int out) {
  const auto name = [&p](const char* module) { return p + "." + module; };
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  s.wq = b.param(name(names.query) + ".weight", {c.hidden, c.hidden});
  s.bq = b.param(name(names.query) + ".bias", {c.hidden});
  s.wk = b.param(name(names.key) + ".weight", {c.hidden, c.hidden});
  s.bk = b.param(name(names.key) + ".bias", {c.hidden});
  s.wv = b.param(name(names.value) + ".weight", {c.hidden, c.hidden});
  s.bv = b.param(name(names.value) + ".bias", {c.hidden});
  s.wo = b.param(name(names.attention_out) + ".weight", {c.hidden, c.hidden});
  s.bo = b.param(name(names.attention_out) + ".bias", {c.hidden});
  s.key_mask = mask;
  s.num_heads = s.num_kv_heads = static_cast<int>(c.heads);
  s.head_dim = static_cast<int>(c.hidden / c.heads);
  const int attended = b.attention(p + ".attention", s);
  const int h = bert_layernorm(b, name(names.attention_norm), b.add(p + ".attention.residual", attended, x), c);
  const int up = bert_linear(b, name(names.up), h, c.intermediate, c.hidden, c.activation);
  const int down = bert_linear(b, name(names.down), up, c.hidden, c.intermediate);
  return bert_layernorm(b, name(names.output_norm), b.add(p + ".output.residual", down, h), c, out);
}

EncoderInputs encoder_inputs(GraphBuilder& b, const PresetOptions& options, int64_t max_seq, int64_t hidden) {
  EncoderInputs in{{options.max_batch, b.symbol("batch", options.max_batch)}, {max_seq, b.symbol("seq", max_seq)},
                   {hidden, -1}};
  in.ids = b.input("input_ids", DType::kI32, {in.B, in.S});
  // Optional, as transformers' attention_mask: unset, every position is a token.
  in.mask = b.optional_input("attention_mask", DType::kI32, {in.B, in.S}, 1);
  return in;
}

int encoder_stack(GraphBuilder& b, const PresetOptions& options, int embedded, const EncoderInputs& in,
                  const BertConfig& c, const std::string& layers_prefix, const EncoderLayerNames& names) {
  int h = bert_layernorm(b, "embeddings.LayerNorm", embedded, c);
  const int last_hidden = b.output("last_hidden_state", {in.B, in.S, in.H});
  for (int64_t l = 0; l < c.layers; ++l) {
    h = post_ln_encoder_layer(b, layers_prefix + std::to_string(l), h, in.mask, c, names,
                              l + 1 == c.layers ? last_hidden : -1);
  }
  add_sentence_embedding(b, options, h, in);
  return h;
}

int bert_pooler(GraphBuilder& b, int h, const EncoderInputs& in, const BertConfig& c) {
  if (!b.weights().has("pooler.dense.weight")) return -1;
  const int cls = b.pool("pooler.cls", h, -1, fb::PoolMode_Cls);
  return bert_linear(b, "pooler.dense", cls, c.hidden, c.hidden, fb::Activation_Tanh,
                     b.output("pooler_output", {in.B, in.H}));
}

}  // namespace convert
}  // namespace focal
