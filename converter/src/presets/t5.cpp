// T5, T5 v1.1 and Flan-T5 (T5ForConditionalGeneration, Hugging Face names and
// config.json), after transformers' modeling_t5.py:
//   - T5LayerNorm: RMS norm without mean or bias (RmsNorm), layer_norm_epsilon;
//   - attention without 1/sqrt(d) (scale 1), head size d_kv independent of d_model, and a
//     relative position bias: the first block of each stack holds the table
//     relative_attention_bias [num_buckets, heads], every block of the stack adds it
//     (one RelativePositionBias op per stack, bidirectional in the encoder);
//   - feed-forward DenseReluDense: wi, act, wo (feed_forward_proj "relu", "gelu"), or
//     gated wi_0 and wi_1 stacked into one GEMM and a Glu ("gated-gelu": gelu_new, the
//     tanh form; "gated-silu");
//   - tied embeddings (tie_word_embeddings, T5 v1.0) rescale the decoder's output by
//     d_model^-0.5 before the head; v1.1 and Flan-T5 have an untied lm_head.
// Inputs by transformers' names: input_ids and attention_mask [batch, src_seq] (1s then
// 0s; optional, as in transformers: unset, every position is a token), decoder_input_ids
// [batch, seq]. Stages (the translate contract, focal/translate.h):
//   encode: the encoder stack and its final norm (output encoder_last_hidden_state), then
//           each decoder block's cross-attention K and V over it, kept as states with the
//           attention mask;
//   decode: the decoder over decoder_input_ids with a causal KV cache per block, logits
//           [batch, seq, vocab] at every position given in the run, as transformers
//           returns them (one position per step when generating).
// Stored hyperparameters, named as the marian preset's for `focal generate`: decoder_start_id
// (decoder_start_token_id, 0, the pad token), eos_id (eos_token_id, 1) and source_eos
// "append" (T5's tokenizer ends every source with eos).
#include <cmath>

#include "presets/decoder_common.h"
#include "presets/hf_config.h"
#include "presets/torch_layers.h"  // planned_or_config

namespace focal {
namespace convert {
namespace {

struct T5Config {
  int64_t vocab = 0, d_model = 0, d_kv = 0, d_ff = 0, heads = 0;
  int64_t encoder_layers = 0, decoder_layers = 0;
  int64_t encoder_buckets = 0, decoder_buckets = 0, max_distance = 0;
  int64_t max_src = 0, max_tgt = 0;
  int64_t decoder_start = 0, eos = 1;
  float epsilon = 1e-6f;
  bool tied = true, gated = false;
  fb::Activation act = fb::Activation_Relu;
};

const char* const kShared = "shared.weight";

std::string attention_name(const std::string& stack, int64_t block, int layer, const char* kind) {
  return stack + ".block." + std::to_string(block) + ".layer." + std::to_string(layer) + "." + kind;
}

std::string bias_table_name(const std::string& stack) {
  return attention_name(stack, 0, 0, "SelfAttention") + ".relative_attention_bias.weight";
}

// feed_forward_proj as transformers splits it: "[gated-]ACT", ACT relu, gelu (gelu_new
// when gated: transformers maps "gated-gelu" to the tanh form) or silu.
Status read_feed_forward(const nlohmann::json& j, T5Config* c) {
  FOCAL_ASSIGN_OR_RETURN(std::string proj, config_string(j, "feed_forward_proj", "relu"));
  c->gated = proj.rfind("gated-", 0) == 0;
  const std::string act = c->gated ? proj.substr(6) : proj;
  if (act == "relu" && !c->gated) c->act = fb::Activation_Relu;
  else if (act == "gelu") c->act = c->gated ? fb::Activation_GeluTanh : fb::Activation_GeluErf;
  else if (act == "gelu_new") c->act = fb::Activation_GeluTanh;
  else if (act == "silu") c->act = fb::Activation_Silu;
  else return config_refused("feed_forward_proj '" + proj + "' is not supported (relu, gelu, gelu_new, silu, gated-gelu, gated-silu)");
  return Status();
}

Status read_config_only(const nlohmann::json& j, const PresetOptions& options, T5Config* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "num_heads", 8, options));
  FOCAL_ASSIGN_OR_RETURN(c->d_kv, config_int(j, "d_kv", 64));
  if (c->heads < 1 || c->d_kv < 1) return config_refused("num_heads and d_kv must be at least 1");
  FOCAL_ASSIGN_OR_RETURN(c->max_distance, config_int(j, "relative_attention_max_distance", 128));
  if (c->max_distance < 1 || c->max_distance > INT32_MAX) return config_refused("relative_attention_max_distance must be positive");
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(j, "layer_norm_epsilon", 1e-6));
  FOCAL_ASSIGN_OR_RETURN(c->tied, config_bool(j, "tie_word_embeddings", true));
  FOCAL_ASSIGN_OR_RETURN(c->decoder_start, config_int(j, "decoder_start_token_id", 0));
  FOCAL_ASSIGN_OR_RETURN(c->eos, config_int(j, "eos_token_id", 1));
  FOCAL_RETURN_IF_ERROR(read_feed_forward(j, c));
  const Result<int64_t> src = planned_or_config(options, j, "max_src_len", 512);
  const Result<int64_t> tgt = planned_or_config(options, j, "max_tgt_len", 512);
  if (!src.ok() || !tgt.ok()) return src.ok() ? tgt.status() : src.status();
  c->max_src = src.value();
  c->max_tgt = tgt.value();
  return Status();
}

// q's rows are heads * d_kv: a config whose product differs is refused, naming both.
Status check_heads(const WeightSource& w, const T5Config& c) {
  const std::string q = attention_name("encoder", 0, 0, "SelfAttention") + ".q.weight";
  const std::vector<int64_t>* shape = w.shape_of(q);
  if (shape != nullptr && (shape->size() != 2 || (*shape)[0] != c.heads * c.d_kv)) {
    return config_refused("config: num_heads " + std::to_string(c.heads) + " x d_kv " + std::to_string(c.d_kv) +
                          " does not match tensor '" + q + "' of shape " + shape_text(*shape));
  }
  return Status();
}

Result<T5Config> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  T5Config c;
  FOCAL_ASSIGN_OR_RETURN(c.vocab, size_from_tensor(w, j, "vocab_size", kShared, 0));
  FOCAL_ASSIGN_OR_RETURN(c.d_model, size_from_tensor(w, j, "d_model", kShared, 1));
  FOCAL_ASSIGN_OR_RETURN(c.encoder_layers, layers_from_tensors(w, j, "num_layers", "encoder.block.",
                                                               ".layer.0.SelfAttention.q.weight"));
  FOCAL_ASSIGN_OR_RETURN(c.decoder_layers, layers_from_tensors(w, j, "num_decoder_layers", "decoder.block.",
                                                               ".layer.0.SelfAttention.q.weight"));
  const Status rest = read_config_only(j, options, &c);
  if (!rest.ok()) return config_error(options, rest);
  const std::string ff = "encoder.block.0.layer.1.DenseReluDense.";
  FOCAL_ASSIGN_OR_RETURN(c.d_ff, size_from_tensor(w, j, "d_ff", ff + (c.gated ? "wi_0.weight" : "wi.weight"), 0));
  FOCAL_ASSIGN_OR_RETURN(c.encoder_buckets, size_from_tensor(w, j, "relative_attention_num_buckets",
                                                             bias_table_name("encoder"), 0));
  FOCAL_ASSIGN_OR_RETURN(c.decoder_buckets, size_from_tensor(w, j, "relative_attention_num_buckets",
                                                             bias_table_name("decoder"), 0));
  FOCAL_RETURN_IF_ERROR(check_heads(w, c));
  return c;
}

struct Graph : Seq2SeqDims {
  int table = -1, head = -1;  // the shared token table; the LM head's weight
};

int t5_norm(GraphBuilder& b, const std::string& name, int x, const T5Config& c) {
  return b.rmsnorm(name, x, b.param(name + ".weight", {c.d_model}), c.epsilon);
}

// T5LayerFF: x + wo(act(wi(norm(x)))), or with the gated form act(wi_0 n) * wi_1 n.
int t5_feed_forward(GraphBuilder& b, const std::string& layer, int x, const T5Config& c) {
  const int n = t5_norm(b, layer + ".layer_norm", x, c);
  const std::string p = layer + ".DenseReluDense";
  int hidden = -1;
  if (c.gated) {
    const Matrix gate = b.fetch(p + ".wi_0.weight", {c.d_ff, c.d_model});
    const Matrix linear = b.fetch(p + ".wi_1.weight", {c.d_ff, c.d_model});
    const int wi = b.status().ok() ? b.constant(p + ".wi_0_1.weight", stacked(gate, linear)) : -1;
    hidden = b.glu(p + ".act", b.dense(p + ".wi_0_1", n, wi, -1), c.act);
  } else {
    hidden = b.dense(p + ".wi", n, b.param(p + ".wi.weight", {c.d_ff, c.d_model}), -1, c.act);
  }
  return b.add(layer + ".residual", x, b.dense(p + ".wo", hidden, b.param(p + ".wo.weight", {c.d_model, c.d_ff}), -1));
}

// T5Attention's projections (no biases) on norm(x), unscaled scores.
ModelWriter::MultiHeadAttentionSpec t5_attention(GraphBuilder& b, const std::string& p, int x, bool own_keys,
                                                 const T5Config& c) {
  const int64_t inner = c.heads * c.d_kv;
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  s.wq = b.param(p + ".q.weight", {inner, c.d_model});
  if (own_keys) {
    s.wk = b.param(p + ".k.weight", {inner, c.d_model});
    s.wv = b.param(p + ".v.weight", {inner, c.d_model});
  }
  s.wo = b.param(p + ".o.weight", {c.d_model, inner});
  s.num_heads = s.num_kv_heads = static_cast<int>(c.heads);
  s.head_dim = static_cast<int>(c.d_kv);
  s.scale = 1.0f;  // Mesh TensorFlow's initialization folds 1/sqrt(d_kv) into q
  return s;
}

int relative_bias(GraphBuilder& b, const std::string& stack, int x, int64_t buckets, int64_t keys, const T5Config& c) {
  const int table = b.param(bias_table_name(stack), {buckets, c.heads});
  return b.relative_position_bias(stack + ".relative_position_bias", x, table, static_cast<int>(c.max_distance),
                                  stack == "encoder", keys);
}

// Stage encode: embeddings, the encoder blocks, its final norm, then every decoder
// block's cross-attention K and V over the result (states with the source mask).
std::vector<ModelWriter::MultiHeadAttentionSpec> encode_stage(GraphBuilder& b, const T5Config& c, const Graph& g) {
  b.writer().begin_stage("encode");
  const int ids = b.input("input_ids", DType::kI32, {g.batch, g.src});
  const int mask = b.optional_input("attention_mask", DType::kI32, {g.batch, g.src}, 1);
  int h = b.embedding("encoder.embed_tokens", ids, g.table, -1, -1, -1, 1.0f);
  const int bias = relative_bias(b, "encoder", h, c.encoder_buckets, c.max_src, c);
  for (int64_t l = 0; l < c.encoder_layers; ++l) {
    const std::string block = "encoder.block." + std::to_string(l);
    const std::string p = block + ".layer.0";
    ModelWriter::MultiHeadAttentionSpec s = t5_attention(b, p + ".SelfAttention", t5_norm(b, p + ".layer_norm", h, c), true, c);
    s.key_mask = mask;
    s.relative_bias = bias;
    h = b.add(p + ".residual", h, b.attention(p + ".SelfAttention", s));
    h = t5_feed_forward(b, block + ".layer.1", h, c);
  }
  const GraphBuilder::Dim width{c.d_model, -1}, inner{c.heads * c.d_kv, -1};
  const int memory = b.rmsnorm("encoder.final_layer_norm", h, b.param("encoder.final_layer_norm.weight", {c.d_model}),
                               c.epsilon, b.output("encoder_last_hidden_state", {g.batch, g.src, width}));
  const int kept_mask =
      b.copy("attention_mask.keep", mask, b.state("attention_mask.state", DType::kI32, {g.batch, g.src}));
  std::vector<ModelWriter::MultiHeadAttentionSpec> cross;
  for (int64_t l = 0; l < c.decoder_layers; ++l) {
    const std::string p = attention_name("decoder", l, 1, "EncDecAttention");
    ModelWriter::MultiHeadAttentionSpec s = t5_attention(b, p, -1, false, c);
    s.key_mask = kept_mask;
    for (const char* part : {"k", "v"}) {
      const int state = b.state(p + "." + part + "_state", DType::kF32, {g.batch, g.src, inner});
      const int w = b.param(p + "." + part + ".weight", {c.heads * c.d_kv, c.d_model});
      (part[0] == 'k' ? s.k_state : s.v_state) = b.dense(p + "." + part, memory, w, -1, fb::Activation_None, state);
    }
    cross.push_back(s);
  }
  return cross;
}

// Stage decode: the decoder blocks over decoder_input_ids with a causal KV cache each,
// then the final norm and the head on every position (transformers' logits).
void decode_stage(GraphBuilder& b, const T5Config& c, const Graph& g, const PresetOptions& options,
                  std::vector<ModelWriter::MultiHeadAttentionSpec> cross) {
  b.writer().begin_stage("decode");
  DecoderGraph d;
  d.batch = g.batch;
  d.seq = g.tgt;
  d.context = {c.max_tgt, -1};
  d.input_ids = b.input("decoder_input_ids", DType::kI32, {g.batch, g.tgt});
  d.all_positions = true;  // always, as transformers; --logits all is accepted and changes nothing
  if (options.logits_option_taken != nullptr) *options.logits_option_taken = true;
  int h = b.embedding("decoder.embed_tokens", d.input_ids, g.table, -1, -1, -1, 1.0f);
  const int bias = relative_bias(b, "decoder", h, c.decoder_buckets, c.max_tgt, c);
  for (int64_t l = 0; l < c.decoder_layers; ++l) {
    const std::string block = "decoder.block." + std::to_string(l);
    std::string p = block + ".layer.0";
    ModelWriter::MultiHeadAttentionSpec s = t5_attention(b, p + ".SelfAttention", t5_norm(b, p + ".layer_norm", h, c), true, c);
    kv_states(b, d, p + ".SelfAttention", c.heads * c.d_kv, &s.k_state, &s.v_state);
    s.causal = true;
    s.relative_bias = bias;
    h = b.add(p + ".residual", h, b.attention(p + ".SelfAttention", s));
    p = block + ".layer.1";
    ModelWriter::MultiHeadAttentionSpec& x = cross[static_cast<size_t>(l)];
    x.x = t5_norm(b, p + ".layer_norm", h, c);
    h = b.add(p + ".residual", h, b.attention(p + ".EncDecAttention", x));
    h = t5_feed_forward(b, block + ".layer.2", h, c);
  }
  // Tied: the output is rescaled by d_model^-0.5 before the head; folded into the final
  // norm's weight (a product of constants: the same up to one f32 rounding).
  const double rescale = c.tied ? 1.0 / std::sqrt(static_cast<double>(c.d_model)) : 1.0;
  const auto norm = [&](int x) {
    Matrix w = b.fetch("decoder.final_layer_norm.weight", {c.d_model});
    for (float& v : w.values) v = static_cast<float>(v * rescale);
    const int weight = b.status().ok() ? b.constant("decoder.final_layer_norm.weight", w) : -1;
    return b.rmsnorm("decoder.final_layer_norm", x, weight, c.epsilon);
  };
  decoder_logits(b, d, h, norm, g.head, c.vocab);
}

}  // namespace

Status build_t5(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const T5Config c, read_config(b.weights(), config, options));
  Graph g{seq2seq_dims(b, options, c.max_src, c.max_tgt)};
  const Matrix shared = b.fetch(kShared, {c.vocab, c.d_model});
  if (c.tied) {
    const GraphBuilder::TiedHead tied = b.tied_table(kShared, "lm_head.weight (tied)", shared);
    g.table = tied.table;
    g.head = tied.head;
  } else {
    g.table = b.constant(kShared, shared);
    g.head = b.param("lm_head.weight", {c.vocab, c.d_model});
  }
  decode_stage(b, c, g, options, encode_stage(b, c, g));
  b.writer().add_hyperparameter("decoder_start_id", std::to_string(c.decoder_start));
  b.writer().add_hyperparameter("eos_id", std::to_string(c.eos));
  b.writer().add_hyperparameter("source_eos", "append");
  return b.status();
}

}  // namespace convert
}  // namespace focal
