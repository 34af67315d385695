// GPT-2 (HuggingFace names and config.json; the "transformer." prefix of
// GPT2LMHeadModel, or any other, is optional; sizes from the tensors): learned positions, pre-LN blocks with gelu-tanh, Conv1D
// weights stored [in, out] (transposed here), fused c_attn split into q, k, v, a KV
// cache per layer, and the LM head tied to the token embeddings (one tensor where the
// writer shares it: GraphBuilder::tied_table), or, with config.json's
// tie_word_embeddings false (as GPT2LMHeadModel honours it), its own lm_head.weight.
// Input input_ids [batch, seq]; output logits [batch, vocab] of the last position, or
// [batch, seq, vocab] with --logits all.
#include "presets/decoder_common.h"
#include "presets/hf_config.h"

namespace focal {
namespace convert {
namespace {

struct Gpt2Config {
  int64_t vocab = 0, d = 0, layers = 0, heads = 0, positions = 0;
  float epsilon = 0.0f;
  bool tied = true;
};

Status read_config_only(const nlohmann::json& config, const PresetOptions& options, Gpt2Config* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(config, "n_head", 12, options));
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(config, "layer_norm_epsilon", 1e-5));
  FOCAL_ASSIGN_OR_RETURN(c->tied, config_bool(config, "tie_word_embeddings", true));
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(config, "activation_function", "gelu_new"));
  if (act != "gelu_new" && act != "gelu_pytorch_tanh") {
    return config_refused("activation_function " + act + " is not supported");
  }
  if (c->heads < 1 || c->d % c->heads != 0) {
    return config_refused("n_head is " + std::to_string(c->heads) + ", which does not divide n_embd " +
                          std::to_string(c->d) + "; pass the model's head count with --set n_head=N or in --config");
  }
  return Status();
}

int gpt2_layernorm(GraphBuilder& b, const std::string& prefix, int x, const Gpt2Config& c) {
  const int gamma = b.param(prefix + ".weight", {c.d});
  const int beta = b.param(prefix + ".bias", {c.d});
  return b.layernorm(prefix, x, gamma, beta, c.epsilon);
}

// A Conv1D weight [in, out] as a Dense weight [out, in], optionally only rows
// [begin, begin + count) of the result.
int conv1d_weight(GraphBuilder& b, const std::string& name, int64_t in, int64_t out, int64_t begin,
                  int64_t count) {
  const Matrix w = b.fetch(name, {in, out});
  if (!b.status().ok()) return -1;
  return b.constant(name + "[" + std::to_string(begin) + ":]", row_slice(transposed(w), begin, count));
}

int conv1d_bias(GraphBuilder& b, const std::string& name, int64_t out, int64_t begin, int64_t count) {
  const Matrix bias = b.fetch(name, {out});
  if (!b.status().ok()) return -1;
  return b.constant(name + "[" + std::to_string(begin) + ":]", row_slice(bias, begin, count));
}

int gpt2_block(GraphBuilder& b, const DecoderGraph& g, const std::string& p, int x, const Gpt2Config& c) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = gpt2_layernorm(b, p + ".ln_1", x, c);
  const std::string attn = p + ".attn";
  int* weights[] = {&s.wq, &s.wk, &s.wv};
  int* biases[] = {&s.bq, &s.bk, &s.bv};
  for (int part = 0; part < 3; ++part) {
    *weights[part] = conv1d_weight(b, attn + ".c_attn.weight", c.d, 3 * c.d, part * c.d, c.d);
    *biases[part] = conv1d_bias(b, attn + ".c_attn.bias", 3 * c.d, part * c.d, c.d);
  }
  s.wo = conv1d_weight(b, attn + ".c_proj.weight", c.d, c.d, 0, c.d);
  s.bo = b.param(attn + ".c_proj.bias", {c.d});
  kv_states(b, g, attn, c.d, &s.k_state, &s.v_state);
  s.causal = true;
  s.num_heads = s.num_kv_heads = static_cast<int>(c.heads);
  s.head_dim = static_cast<int>(c.d / c.heads);
  const int h = b.add(attn + ".residual", x, b.attention(attn, s));
  const std::string mlp = p + ".mlp";
  const int fc = conv1d_weight(b, mlp + ".c_fc.weight", c.d, 4 * c.d, 0, 4 * c.d);
  const int up = b.dense(mlp + ".c_fc", gpt2_layernorm(b, p + ".ln_2", h, c), fc, b.param(mlp + ".c_fc.bias", {4 * c.d}),
                         fb::Activation_GeluTanh);
  const int proj = conv1d_weight(b, mlp + ".c_proj.weight", 4 * c.d, c.d, 0, c.d);
  const int down = b.dense(mlp + ".c_proj", up, proj, b.param(mlp + ".c_proj.bias", {c.d}));
  return b.add(mlp + ".residual", h, down);
}

// Sizes from the tensors (config keys, when present, must agree); n_head, the epsilon
// and the activation from the config, with GPT2Config's defaults when absent.
Result<Gpt2Config> read_config(const WeightSource& w, const nlohmann::json& config, const PresetOptions& options) {
  Gpt2Config c;
  FOCAL_ASSIGN_OR_RETURN(c.vocab, size_from_tensor(w, config, "vocab_size", "wte.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(c.d, size_from_tensor(w, config, "n_embd", "wte.weight", 1));
  FOCAL_ASSIGN_OR_RETURN(c.positions, size_from_tensor(w, config, "n_positions", "wpe.weight", 0));
  FOCAL_ASSIGN_OR_RETURN(c.layers, layers_from_tensors(w, config, "n_layer", "h.", ".attn.c_attn.weight"));
  const Status rest = read_config_only(config, options, &c);
  if (!rest.ok()) return config_error(options, rest);
  return c;
}

}  // namespace

Status build_gpt2(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  b.weights().set_prefix(prefix_of(b.weights(), "wte.weight"));  // "transformer." or a wrapper's
  FOCAL_ASSIGN_OR_RETURN(const Gpt2Config c, read_config(b.weights(), config, options));
  FOCAL_ASSIGN_OR_RETURN(const int64_t context, planned_seq_within(options, c.positions, 1024, "n_positions"));
  const DecoderGraph g = decoder_inputs(b, options, context);
  const Matrix wte = b.fetch("wte.weight", {c.vocab, c.d});
  const GraphBuilder::TiedHead tied =
      c.tied ? b.tied_table("wte.weight", "lm_head.weight (tied to wte)", wte) : GraphBuilder::TiedHead{};
  const int table = c.tied ? tied.table : b.constant("wte.weight", wte);
  const int positions = b.param("wpe.weight", {c.positions, c.d});
  int h = b.embedding("embeddings", g.input_ids, table, positions, -1, -1, 1.0f);
  for (int64_t l = 0; l < c.layers; ++l) h = gpt2_block(b, g, "h." + std::to_string(l), h, c);
  // "lm_head.weight" sits beside the "transformer." prefix in GPT2LMHeadModel checkpoints:
  // found either way (WeightSource tries the name with and without the prefix).
  const int head = c.tied ? tied.head : b.param("lm_head.weight", {c.vocab, c.d});
  decoder_logits(b, g, h, [&](int x) { return gpt2_layernorm(b, "ln_f", x, c); }, head, c.vocab);
  return b.status();
}

}  // namespace convert
}  // namespace focal
