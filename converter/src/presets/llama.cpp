// Llama (HuggingFace names and config.json): RMSNorm, rotary positions (half-split, as
// HF stores q_proj/k_proj), grouped-query attention with head_dim from the config, a
// SwiGLU MLP (gate and up stacked into one GEMM), a KV cache per layer and an untied
// (or, with tie_word_embeddings, tied: one tensor for the table and the head where the
// writer shares it) LM head.
// Input input_ids [batch, seq]; output logits [batch, vocab] of the last position, or
// [batch, seq, vocab] with --logits all.
#include "presets/decoder_common.h"
#include "presets/hf_config.h"

namespace focal {
namespace convert {
namespace {

struct LlamaConfig : HfSizes {
  int64_t kv_heads = 0, head_dim = 0, positions = 0;
  float epsilon = 0.0f, theta = 0.0f;
  bool tied = false;
};

// Newer transformers write RoPE's settings as "rope_parameters" {"rope_type", "rope_theta"}
// in place of rope_theta; only the plain ("default") rotation is built.
Status read_rope_parameters(const nlohmann::json& j, LlamaConfig* c) {
  if (!j.contains("rope_parameters") || j.at("rope_parameters").is_null()) return Status();
  const nlohmann::json& rope = j.at("rope_parameters");
  if (!rope.is_object()) return config_refused("'rope_parameters' must be an object");
  FOCAL_ASSIGN_OR_RETURN(const std::string type, config_string(rope, "rope_type", "default"));
  if (type != "default") return config_refused("rope_parameters rope_type " + type + " is not supported (default)");
  FOCAL_ASSIGN_OR_RETURN(c->theta, config_float(rope, "rope_theta", c->theta));
  return Status();
}

// Heads and what no shape tells, with LlamaConfig's defaults when absent.
Status read_config_only(const nlohmann::json& j, const PresetOptions& options, LlamaConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "num_attention_heads", 32, options));
  if (c->heads < 1) return config_refused("num_attention_heads must be at least 1");
  FOCAL_ASSIGN_OR_RETURN(c->head_dim, config_int(j, "head_dim", c->hidden / c->heads));
  if (c->head_dim < 1) return config_refused("head_dim must be at least 1 (hidden_size / num_attention_heads when absent)");
  FOCAL_ASSIGN_OR_RETURN(c->positions, config_int(j, "max_position_embeddings", 2048));
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(j, "rms_norm_eps", 1e-6));
  FOCAL_ASSIGN_OR_RETURN(c->theta, config_float(j, "rope_theta", 10000.0));
  FOCAL_RETURN_IF_ERROR(read_rope_parameters(j, c));
  FOCAL_ASSIGN_OR_RETURN(c->tied, config_bool(j, "tie_word_embeddings", false));
  if (j.contains("rope_scaling") && !j.at("rope_scaling").is_null()) {
    return config_refused("rope_scaling is not supported");
  }
  return Status();
}

// q_proj's rows are heads * head_dim; k_proj's give the kv heads (num_key_value_heads,
// when present, must agree).
Status check_heads(const WeightSource& w, const nlohmann::json& j, LlamaConfig* c) {
  if (c->head_dim < 1) return config_refused("config: head_dim must be at least 1");  // checked again: divided by
  const std::string q = "model.layers.0.self_attn.q_proj.weight", k = "model.layers.0.self_attn.k_proj.weight";
  FOCAL_ASSIGN_OR_RETURN(const int64_t q_rows, size_from_tensor(w, nlohmann::json::object(), "", q, 0));
  if (w.shape_of(q) != nullptr && q_rows != c->heads * c->head_dim) {
    return config_refused("config: num_attention_heads " + std::to_string(c->heads) + " x head_dim " +
                          std::to_string(c->head_dim) + " is not " + q + "'s " + std::to_string(q_rows) +
                          " rows; pass the model's with --set num_attention_heads=N (and head_dim) or in --config");
  }
  const std::vector<int64_t>* k_shape = w.shape_of(k);
  if (k_shape == nullptr) {  // random weights: the config's
    FOCAL_ASSIGN_OR_RETURN(c->kv_heads, config_int(j, "num_key_value_heads", c->heads));
  } else {
    c->kv_heads = k_shape->empty() ? 0 : (*k_shape)[0] / c->head_dim;
    FOCAL_ASSIGN_OR_RETURN(const int64_t stated, config_int(j, "num_key_value_heads", c->kv_heads));
    if (stated != c->kv_heads || k_shape->empty() || (*k_shape)[0] != c->kv_heads * c->head_dim) {
      return config_refused("config: num_key_value_heads " + std::to_string(stated) + " x head_dim " +
                            std::to_string(c->head_dim) + " does not match tensor '" + k + "' of shape " +
                            shape_text(*k_shape));
    }
  }
  if (c->kv_heads < 1 || c->heads % c->kv_heads != 0) {
    return config_refused("config: num_attention_heads must be a multiple of num_key_value_heads");
  }
  return Status();
}

Result<LlamaConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options) {
  LlamaConfig c;
  const std::string embed = "model.embed_tokens.weight";
  FOCAL_ASSIGN_OR_RETURN(c.vocab, size_from_tensor(w, j, "vocab_size", embed, 0));
  FOCAL_ASSIGN_OR_RETURN(c.hidden, size_from_tensor(w, j, "hidden_size", embed, 1));
  FOCAL_ASSIGN_OR_RETURN(c.layers, layers_from_tensors(w, j, "num_hidden_layers", "model.layers.",
                                                       ".self_attn.q_proj.weight"));
  FOCAL_ASSIGN_OR_RETURN(c.intermediate, size_from_tensor(w, j, "intermediate_size",
                                                          "model.layers.0.mlp.gate_proj.weight", 0));
  const Status rest = read_config_only(j, options, &c);
  if (!rest.ok()) return config_error(options, rest);
  FOCAL_RETURN_IF_ERROR(check_heads(w, j, &c));
  c.tied = c.tied || (w.shape_of(embed) != nullptr && !w.has("lm_head.weight"));  // no head: tied, as HF saves it
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
  FOCAL_ASSIGN_OR_RETURN(const LlamaConfig c, read_config(b.weights(), config, options));
  FOCAL_ASSIGN_OR_RETURN(const int64_t context,
                         planned_seq_within(options, c.positions, 2048, "max_position_embeddings"));
  const DecoderGraph g = decoder_inputs(b, options, context);
  const Matrix embed = b.fetch("model.embed_tokens.weight", {c.vocab, c.hidden});
  const std::string table_name = "model.embed_tokens.weight";
  const GraphBuilder::TiedHead tied =
      c.tied ? b.tied_table(table_name, "lm_head.weight (tied)", embed) : GraphBuilder::TiedHead{};
  const int table = c.tied ? tied.table : b.constant(table_name, embed);
  int h = b.embedding("embed_tokens", g.input_ids, table, -1, -1, -1, 1.0f);
  for (int64_t l = 0; l < c.layers; ++l) h = llama_layer(b, g, "model.layers." + std::to_string(l), h, c);
  const int head = c.tied ? tied.head : b.param("lm_head.weight", {c.vocab, c.hidden});
  decoder_logits(b, g, h, [&](int x) { return llama_norm(b, "model.norm", x, c); }, head, c.vocab);
  return b.status();
}

}  // namespace convert
}  // namespace focal
