// Llama (HuggingFace names and config.json): RMSNorm, rotary positions (half-split, as
// HF stores q_proj/k_proj), grouped-query attention with head_dim from the config, a
// SwiGLU MLP (gate and up stacked into one GEMM), a KV cache per layer and an untied
// (or, with tie_word_embeddings, tied) LM head.
// Input input_ids [batch, seq]; output logits [batch, vocab] of the last position.
#include "presets/decoder_common.h"

namespace focal {
namespace convert {
namespace {

struct LlamaConfig {
  int64_t vocab, d, ffn, layers, heads, kv_heads, head_dim, positions;
  float epsilon, theta;
  bool tied;
};

Result<LlamaConfig> read_config(const nlohmann::json& j) {
  LlamaConfig c;
  FOCAL_ASSIGN_OR_RETURN(c.vocab, config_int(j, "vocab_size"));
  FOCAL_ASSIGN_OR_RETURN(c.d, config_int(j, "hidden_size"));
  FOCAL_ASSIGN_OR_RETURN(c.ffn, config_int(j, "intermediate_size"));
  FOCAL_ASSIGN_OR_RETURN(c.layers, config_int(j, "num_hidden_layers"));
  FOCAL_ASSIGN_OR_RETURN(c.heads, config_int(j, "num_attention_heads"));
  FOCAL_ASSIGN_OR_RETURN(c.kv_heads, config_int(j, "num_key_value_heads", c.heads));
  FOCAL_ASSIGN_OR_RETURN(c.head_dim, config_int(j, "head_dim", c.heads > 0 ? c.d / c.heads : 0));
  FOCAL_ASSIGN_OR_RETURN(c.positions, config_int(j, "max_position_embeddings", 2048));
  FOCAL_ASSIGN_OR_RETURN(c.epsilon, config_float(j, "rms_norm_eps", 1e-6));
  FOCAL_ASSIGN_OR_RETURN(c.theta, config_float(j, "rope_theta", 10000.0));
  FOCAL_ASSIGN_OR_RETURN(c.tied, config_bool(j, "tie_word_embeddings", false));
  if (j.contains("rope_scaling") && !j.at("rope_scaling").is_null()) {
    return config_refused("rope_scaling is not supported");
  }
  if (c.heads < 1 || c.kv_heads < 1 || c.heads % c.kv_heads != 0) {
    return config_refused("num_attention_heads must be a multiple of num_key_value_heads");
  }
  return c;
}

int llama_norm(GraphBuilder& b, const std::string& name, int x, const LlamaConfig& c) {
  return b.rmsnorm(name, x, b.param(name + ".weight", {c.d}), c.epsilon);
}

int llama_layer(GraphBuilder& b, const DecoderGraph& g, const std::string& p, int x, const LlamaConfig& c) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = llama_norm(b, p + ".input_layernorm", x, c);
  const std::string attn = p + ".self_attn";
  const int64_t q_features = c.heads * c.head_dim, kv_features = c.kv_heads * c.head_dim;
  s.wq = b.param(attn + ".q_proj.weight", {q_features, c.d});
  s.wk = b.param(attn + ".k_proj.weight", {kv_features, c.d});
  s.wv = b.param(attn + ".v_proj.weight", {kv_features, c.d});
  s.wo = b.param(attn + ".o_proj.weight", {c.d, q_features});
  s.bq = b.optional_param(attn + ".q_proj.bias", {q_features});  // Qwen2-style biases
  s.bk = b.optional_param(attn + ".k_proj.bias", {kv_features});
  s.bv = b.optional_param(attn + ".v_proj.bias", {kv_features});
  kv_states(b, g, attn, kv_features, &s.k_state, &s.v_state);
  s.causal = true;
  s.num_heads = static_cast<int>(c.heads);
  s.num_kv_heads = static_cast<int>(c.kv_heads);
  s.head_dim = static_cast<int>(c.head_dim);
  s.rope = fb::RopeLayout_HalfSplit;
  s.rope_theta = c.theta;
  const int h = b.add(attn + ".residual", x, b.attention(attn, s));
  const std::string mlp = p + ".mlp";
  const Matrix gate = b.fetch(mlp + ".gate_proj.weight", {c.ffn, c.d});
  const Matrix up = b.fetch(mlp + ".up_proj.weight", {c.ffn, c.d});
  const int gate_up = b.status().ok() ? b.constant(mlp + ".gate_up_proj.weight", stacked(gate, up)) : -1;
  const int both = b.dense(mlp + ".gate_up_proj", llama_norm(b, p + ".post_attention_layernorm", h, c), gate_up, -1);
  const int gated = b.glu(mlp + ".act", both, fb::Activation_Silu);
  const int down = b.dense(mlp + ".down_proj", gated, b.param(mlp + ".down_proj.weight", {c.d, c.ffn}), -1);
  return b.add(mlp + ".residual", h, down);
}

}  // namespace

Status build_llama(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  const Result<LlamaConfig> read = read_config(config);
  if (!read.ok()) return config_error(options, read.status());
  const LlamaConfig& c = read.value();
  const int64_t context = planned_seq(options, c.positions, 2048);
  if (context > c.positions) {
    return Status::error(StatusCode::kInvalidArgument, "--max-seq %lld exceeds max_position_embeddings %lld",
                         static_cast<long long>(context), static_cast<long long>(c.positions));
  }
  const DecoderGraph g = decoder_inputs(b, options, context);
  const Matrix embed = b.fetch("model.embed_tokens.weight", {c.vocab, c.d});
  int h = b.embedding("embed_tokens", g.input_ids, b.constant("model.embed_tokens.weight", embed), -1, -1, -1, 1.0f);
  for (int64_t l = 0; l < c.layers; ++l) h = llama_layer(b, g, "model.layers." + std::to_string(l), h, c);
  const int head = c.tied ? b.constant("lm_head.weight (tied)", embed) : b.param("lm_head.weight", {c.vocab, c.d});
  last_position_logits(b, g, h, [&](int x) { return llama_norm(b, "model.norm", x, c); }, head, c.vocab);
  return b.status();
}

}  // namespace convert
}  // namespace focal
