// Llama (HuggingFace names and config.json): RMSNorm, rotary positions (half-split, as
// HF stores q_proj/k_proj), grouped-query attention with head_dim from the config, a
// SwiGLU MLP (gate and up stacked into one GEMM), a KV cache per layer and an untied
// (or, with tie_word_embeddings, tied) LM head.
// Input input_ids [batch, seq]; output logits [batch, vocab] of the last position, or
// [batch, seq, vocab] with --logits all.
#include "presets/decoder_common.h"

namespace focal {
namespace convert {
namespace {

struct LlamaConfig : HfSizes {
  int64_t kv_heads, head_dim, positions;
  float epsilon, theta;
  bool tied;
};

Result<LlamaConfig> read_config(const nlohmann::json& j) {
  LlamaConfig c;
  FOCAL_RETURN_IF_ERROR(read_hf_sizes(j, &c));
  FOCAL_ASSIGN_OR_RETURN(c.kv_heads, config_int(j, "num_key_value_heads", c.heads));
  FOCAL_ASSIGN_OR_RETURN(c.head_dim, config_int(j, "head_dim", c.heads > 0 ? c.hidden / c.heads : 0));
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
  return b.rmsnorm(name, x, b.param(name + ".weight", {c.hidden}), c.epsilon);
}

int llama_layer(GraphBuilder& b, const DecoderGraph& g, const std::string& p, int x, const LlamaConfig& c) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = llama_norm(b, p + ".input_layernorm", x, c);
  const std::string attn = p + ".self_attn";
  const int64_t q_features = c.heads * c.head_dim, kv_features = c.kv_heads * c.head_dim;
  s.wq = b.param(attn + ".q_proj.weight", {q_features, c.hidden});
  s.wk = b.param(attn + ".k_proj.weight", {kv_features, c.hidden});
  s.wv = b.param(attn + ".v_proj.weight", {kv_features, c.hidden});
  s.wo = b.param(attn + ".o_proj.weight", {c.hidden, q_features});
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
  const Matrix gate = b.fetch(mlp + ".gate_proj.weight", {c.intermediate, c.hidden});
  const Matrix up = b.fetch(mlp + ".up_proj.weight", {c.intermediate, c.hidden});
  const int gate_up = b.status().ok() ? b.constant(mlp + ".gate_up_proj.weight", stacked(gate, up)) : -1;
  const int both = b.dense(mlp + ".gate_up_proj", llama_norm(b, p + ".post_attention_layernorm", h, c), gate_up, -1);
  const int gated = b.glu(mlp + ".act", both, fb::Activation_Silu);
  const int down = b.dense(mlp + ".down_proj", gated, b.param(mlp + ".down_proj.weight", {c.hidden, c.intermediate}), -1);
  return b.add(mlp + ".residual", h, down);
}

}  // namespace

Status build_llama(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const LlamaConfig c, named_config(options, read_config(config)));
  FOCAL_ASSIGN_OR_RETURN(const int64_t context,
                         planned_seq_within(options, c.positions, 2048, "max_position_embeddings"));
  const DecoderGraph g = decoder_inputs(b, options, context);
  const Matrix embed = b.fetch("model.embed_tokens.weight", {c.vocab, c.hidden});
  int h = b.embedding("embed_tokens", g.input_ids, b.constant("model.embed_tokens.weight", embed), -1, -1, -1, 1.0f);
  for (int64_t l = 0; l < c.layers; ++l) h = llama_layer(b, g, "model.layers." + std::to_string(l), h, c);
  const int head = c.tied ? b.constant("lm_head.weight (tied)", embed) : b.param("lm_head.weight", {c.vocab, c.hidden});
  decoder_logits(b, g, h, [&](int x) { return llama_norm(b, "model.norm", x, c); }, head, c.vocab);
  return b.status();
}

}  // namespace convert
}  // namespace focal
