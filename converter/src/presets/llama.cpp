// Llama (HuggingFace names and config.json) and the decoders built like it (Qwen2,
// Qwen3, Gemma, Phi-3: llama_family.h): RMSNorm, rotary positions (half-split, as HF stores
// q_proj/k_proj; Llama 3's rope_scaling as a stored frequency table), grouped-query
// attention with head_dim from the config, a gated MLP (gate and up stacked into one
// GEMM), a KV cache per layer and an untied (or, with tie_word_embeddings, tied: one
// tensor for the table and the head where the writer shares it) LM head.
// Input input_ids [batch, seq]; output logits [batch, vocab] of the last position, or
// [batch, seq, vocab] with --logits all.
#include <algorithm>
#include <cmath>
#include <string>

#include "presets/decoder_common.h"
#include "presets/hf_config.h"
#include "presets/llama_family.h"
#include "presets/rope_frequencies.h"

namespace focal {
namespace convert {
namespace {

struct LlamaConfig : HfSizes {
  int64_t kv_heads = 0, head_dim = 0, positions = 0, sliding_window = 0;  // 0: no window
  float epsilon = 0.0f;
  RopeFrequencies rope;
  fb::Activation activation = fb::Activation_Silu;
  bool tied = false;
};

std::string attention_weight(const LlamaVariant& v) {
  return v.fused ? ".self_attn.qkv_proj.weight" : ".self_attn.q_proj.weight";
}

std::string mlp_weight(const LlamaVariant& v) { return v.fused ? ".mlp.gate_up_proj.weight" : ".mlp.gate_proj.weight"; }

// The MLP's activation as transformers' ACT2FN names it. Gemma reads hidden_activation
// and, without it, uses gelu_pytorch_tanh whatever hidden_act says (modeling_gemma.py).
Result<fb::Activation> mlp_activation(const nlohmann::json& j, const LlamaVariant& v) {
  const char* key = v.gemma ? "hidden_activation" : "hidden_act";
  FOCAL_ASSIGN_OR_RETURN(const std::string act, config_string(j, key, v.default_activation));
  if (act == "silu" || act == "swish") return fb::Activation_Silu;
  if (act == "gelu_pytorch_tanh" || act == "gelu_new") return fb::Activation_GeluTanh;
  if (act == "gelu") return fb::Activation_GeluErf;
  return config_refused(std::string(key) + " " + act + " is not supported (silu, gelu, gelu_pytorch_tanh, gelu_new)");
}

// A window the attention may not look past: refused unless the planned context fits in
// it. Qwen2 states one that applies only with use_sliding_window.
Result<int64_t> sliding_window(const nlohmann::json& j, const LlamaVariant& v) {
  if (!v.sliding_window) return int64_t{0};
  FOCAL_ASSIGN_OR_RETURN(const bool used, config_bool(j, "use_sliding_window", true));
  if (!used) return int64_t{0};
  FOCAL_ASSIGN_OR_RETURN(const int64_t window, config_int(j, "sliding_window", 0));
  if (window < 0) return config_refused("sliding_window must be >= 0");
  return window;
}

// Heads and what no shape tells, with the variant's defaults when absent.
Status read_config_only(const nlohmann::json& j, const PresetOptions& options, const LlamaVariant& v, LlamaConfig* c) {
  FOCAL_ASSIGN_OR_RETURN(c->heads, head_count(j, "num_attention_heads", v.default_heads, options));
  if (c->heads < 1) return config_refused("num_attention_heads must be at least 1");
  const int64_t default_head_dim = v.default_head_dim > 0 ? v.default_head_dim : c->hidden / c->heads;
  FOCAL_ASSIGN_OR_RETURN(c->head_dim, config_int(j, "head_dim", default_head_dim));
  if (c->head_dim < 1) return config_refused("head_dim must be at least 1 (hidden_size / num_attention_heads when absent)");
  FOCAL_ASSIGN_OR_RETURN(c->positions, config_int(j, "max_position_embeddings", v.default_positions));
  FOCAL_ASSIGN_OR_RETURN(c->epsilon, config_float(j, "rms_norm_eps", v.default_epsilon));
  FOCAL_ASSIGN_OR_RETURN(c->rope, read_rope_frequencies(j, 10000.0, c->head_dim));
  FOCAL_ASSIGN_OR_RETURN(const double rotary_fraction, config_number(j, "partial_rotary_factor", 1.0));
  if (rotary_fraction != 1.0) return config_refused("partial_rotary_factor other than 1 is not supported");
  FOCAL_ASSIGN_OR_RETURN(c->tied, config_bool(j, "tie_word_embeddings", v.default_tied));
  FOCAL_ASSIGN_OR_RETURN(c->activation, mlp_activation(j, v));
  FOCAL_ASSIGN_OR_RETURN(c->sliding_window, sliding_window(j, v));
  return Status();
}

// The query and key projections' rows as stored: q_proj's and k_proj's, or split from
// Phi-3's qkv_proj (q rows heads * head_dim, then k and v alike). Null shapes (random
// weights) give -1.
Status stored_rows(const WeightSource& w, const LlamaVariant& v, const LlamaConfig& c, int64_t* q, int64_t* k) {
  const std::string p = "model.layers.0";
  const std::vector<int64_t>* q_shape = w.shape_of(p + attention_weight(v));
  const std::vector<int64_t>* k_shape = v.fused ? q_shape : w.shape_of(p + ".self_attn.k_proj.weight");
  *q = q_shape == nullptr || q_shape->empty() ? -1 : (*q_shape)[0];
  *k = k_shape == nullptr || k_shape->empty() ? -1 : (*k_shape)[0];
  if (!v.fused || *q < 0) return Status();
  const int64_t kv_rows = *q - c.heads * c.head_dim;
  if (kv_rows <= 0 || kv_rows % 2 != 0) {
    return config_refused("config: tensor '" + p + attention_weight(v) + "' of shape " + shape_text(*q_shape) +
                          " is not num_attention_heads " + std::to_string(c.heads) + " x head_dim " +
                          std::to_string(c.head_dim) + " query rows and equal key and value rows");
  }
  *q = c.heads * c.head_dim;
  *k = kv_rows / 2;
  return Status();
}

// q rows are heads * head_dim; k rows give the kv heads (num_key_value_heads, when
// present, must agree).
Status check_heads(const WeightSource& w, const nlohmann::json& j, const LlamaVariant& v, LlamaConfig* c) {
  if (c->head_dim < 1) return config_refused("config: head_dim must be at least 1");  // checked again: divided by
  const std::string q = "model.layers.0" + attention_weight(v);
  int64_t q_rows = 0, k_rows = 0;
  FOCAL_RETURN_IF_ERROR(stored_rows(w, v, *c, &q_rows, &k_rows));
  if (q_rows >= 0 && q_rows != c->heads * c->head_dim) {
    return config_refused("config: num_attention_heads " + std::to_string(c->heads) + " x head_dim " +
                          std::to_string(c->head_dim) + " is not " + q + "'s " + std::to_string(q_rows) +
                          " rows; pass the model's with --set num_attention_heads=N (and head_dim) or in --config");
  }
  if (k_rows < 0) {  // random weights: the config's
    FOCAL_ASSIGN_OR_RETURN(c->kv_heads, config_int(j, "num_key_value_heads", c->heads));
  } else {
    const std::string k = v.fused ? q : "model.layers.0.self_attn.k_proj.weight";
    c->kv_heads = k_rows / c->head_dim;
    FOCAL_ASSIGN_OR_RETURN(const int64_t stated, config_int(j, "num_key_value_heads", c->kv_heads));
    if (stated != c->kv_heads || k_rows != c->kv_heads * c->head_dim) {
      return config_refused("config: num_key_value_heads " + std::to_string(stated) + " x head_dim " +
                            std::to_string(c->head_dim) + " does not match the " + std::to_string(k_rows) +
                            " key rows of tensor '" + k + "'");
    }
  }
  if (c->kv_heads < 1 || c->heads % c->kv_heads != 0) {
    return config_refused("config: num_attention_heads must be a multiple of num_key_value_heads");
  }
  return Status();
}

// intermediate_size: gate_proj's rows, or half of Phi-3's gate_up_proj's.
Result<int64_t> intermediate_size(const WeightSource& w, const nlohmann::json& j, const LlamaVariant& v) {
  const std::string tensor = "model.layers.0" + mlp_weight(v);
  if (!v.fused) return size_from_tensor(w, j, "intermediate_size", tensor, 0);
  const std::vector<int64_t>* shape = w.shape_of(tensor);
  if (shape == nullptr) return config_int(j, "intermediate_size");
  const int64_t rows = shape->empty() ? 0 : (*shape)[0];
  FOCAL_ASSIGN_OR_RETURN(const int64_t stated, config_int(j, "intermediate_size", rows / 2));
  if (rows % 2 != 0 || stated * 2 != rows) {
    return config_refused("config: intermediate_size " + std::to_string(stated) + " is not half of tensor '" +
                          tensor + "' of shape " + shape_text(*shape));
  }
  return stated;
}

// Qwen3's q_norm and k_norm change every attention score: a preset without them refuses
// a checkpoint holding them rather than compute without them.
Status check_qk_norms(const WeightSource& w, const LlamaVariant& v) {
  if (v.qk_norm) return Status();
  const std::string attn = "model.layers.0.self_attn.";
  for (const char* norm : {"q_norm.weight", "k_norm.weight"}) {
    if (w.has(attn + norm)) {
      return config_refused("tensor '" + attn + norm + "' (and " + attn + (norm[0] == 'q' ? "k" : "q") +
                            "_norm.weight): per-head query and key norms, as Qwen3's, which this preset "
                            "does not compute; convert with --preset qwen3");
    }
  }
  return Status();
}

Result<LlamaConfig> read_config(const WeightSource& w, const nlohmann::json& j, const PresetOptions& options,
                                const LlamaVariant& v) {
  LlamaConfig c;
  const std::string embed = "model.embed_tokens.weight";
  FOCAL_ASSIGN_OR_RETURN(c.vocab, size_from_tensor(w, j, "vocab_size", embed, 0));
  FOCAL_ASSIGN_OR_RETURN(c.hidden, size_from_tensor(w, j, "hidden_size", embed, 1));
  FOCAL_ASSIGN_OR_RETURN(c.layers, layers_from_tensors(w, j, "num_hidden_layers", "model.layers.", attention_weight(v)));
  FOCAL_ASSIGN_OR_RETURN(c.intermediate, intermediate_size(w, j, v));
  const Status rest = read_config_only(j, options, v, &c);
  if (!rest.ok()) return config_error(options, rest);
  FOCAL_RETURN_IF_ERROR(check_heads(w, j, v, &c));
  FOCAL_RETURN_IF_ERROR(check_qk_norms(w, v));
  c.tied = c.tied || (w.shape_of(embed) != nullptr && !w.has("lm_head.weight"));  // no head: tied, as HF saves it
  return c;
}

// Gemma's RMSNorm multiplies by (1 + w): stored folded, 1.0f + w in f32 as HF computes it.
int llama_norm(GraphBuilder& b, const std::string& name, int x, const LlamaConfig& c, const LlamaVariant& v) {
  if (!v.gemma) return b.rmsnorm(name, x, b.param(name + ".weight", {c.hidden}), c.epsilon);
  Matrix gamma = b.fetch(name + ".weight", {c.hidden});
  for (float& g : gamma.values) g = 1.0f + g;
  return b.rmsnorm(name, x, b.status().ok() ? b.constant(name + ".weight", gamma) : -1, c.epsilon);
}

// q, k and v projections: their own tensors, or rows of Phi-3's qkv_proj.
void attention_weights(GraphBuilder& b, const std::string& attn, const LlamaConfig& c, const LlamaVariant& v,
                       ModelWriter::MultiHeadAttentionSpec* s) {
  const int64_t q_features = c.heads * c.head_dim, kv_features = c.kv_heads * c.head_dim;
  if (v.fused) {
    const Matrix qkv = b.fetch(attn + ".qkv_proj.weight", {q_features + 2 * kv_features, c.hidden});
    if (!b.status().ok()) return;
    s->wq = b.constant(attn + ".q_proj.weight", row_slice(qkv, 0, q_features));
    s->wk = b.constant(attn + ".k_proj.weight", row_slice(qkv, q_features, kv_features));
    s->wv = b.constant(attn + ".v_proj.weight", row_slice(qkv, q_features + kv_features, kv_features));
    return;
  }
  s->wq = b.param(attn + ".q_proj.weight", {q_features, c.hidden});
  s->wk = b.param(attn + ".k_proj.weight", {kv_features, c.hidden});
  s->wv = b.param(attn + ".v_proj.weight", {kv_features, c.hidden});
  s->bq = b.optional_param(attn + ".q_proj.bias", {q_features});  // Qwen2's biases
  s->bk = b.optional_param(attn + ".k_proj.bias", {kv_features});
  s->bv = b.optional_param(attn + ".v_proj.bias", {kv_features});
}

// gate then up, stacked [2 * intermediate, hidden]: as stored by Phi-3, else stacked here.
int gate_up_weight(GraphBuilder& b, const std::string& mlp, const LlamaConfig& c, const LlamaVariant& v) {
  if (v.fused) return b.param(mlp + ".gate_up_proj.weight", {2 * c.intermediate, c.hidden});
  const Matrix gate = b.fetch(mlp + ".gate_proj.weight", {c.intermediate, c.hidden});
  const Matrix up = b.fetch(mlp + ".up_proj.weight", {c.intermediate, c.hidden});
  return b.status().ok() ? b.constant(mlp + ".gate_up_proj.weight", stacked(gate, up)) : -1;
}

int llama_layer(GraphBuilder& b, const DecoderGraph& g, const std::string& p, int x, const LlamaConfig& c,
                const LlamaVariant& v) {
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = llama_norm(b, p + ".input_layernorm", x, c, v);
  const std::string attn = p + ".self_attn";
  const int64_t q_features = c.heads * c.head_dim, kv_features = c.kv_heads * c.head_dim;
  attention_weights(b, attn, c, v, &s);
  s.wo = b.param(attn + ".o_proj.weight", {c.hidden, q_features});
  kv_states(b, g, attn, kv_features, &s.k_state, &s.v_state);
  s.causal = true;
  s.num_heads = static_cast<int>(c.heads);
  s.num_kv_heads = static_cast<int>(c.kv_heads);
  s.head_dim = static_cast<int>(c.head_dim);
  s.rope = fb::RopeLayout_HalfSplit;
  s.rope_theta = c.rope.theta;
  s.rope_inv_freq = c.rope.inv_freq;
  if (v.qk_norm) {  // Qwen3
    s.q_norm = b.param(attn + ".q_norm.weight", {c.head_dim});
    s.k_norm = b.param(attn + ".k_norm.weight", {c.head_dim});
    s.qk_norm_epsilon = c.epsilon;
  }
  const int h = b.add(attn + ".residual", x, b.attention(attn, s));
  const std::string mlp = p + ".mlp";
  const int normed = llama_norm(b, p + ".post_attention_layernorm", h, c, v);
  const int both = b.dense(mlp + ".gate_up_proj", normed, gate_up_weight(b, mlp, c, v), -1);
  const int gated = b.glu(mlp + ".act", both, c.activation);
  const int down = b.dense(mlp + ".down_proj", gated, b.param(mlp + ".down_proj.weight", {c.hidden, c.intermediate}), -1);
  return b.add(mlp + ".residual", h, down);
}

Status check_window(const LlamaConfig& c, int64_t context) {
  if (c.sliding_window == 0 || context <= c.sliding_window) return Status();
  return Status::error(StatusCode::kInvalidArgument,
                       "config: sliding_window %lld is shorter than the planned context %lld; sliding-window "
                       "attention is not supported: pass --max-seq %lld or less",
                       static_cast<long long>(c.sliding_window), static_cast<long long>(context),
                       static_cast<long long>(c.sliding_window));
}

}  // namespace

Status build_llama_family(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b,
                          const LlamaVariant& v) {
  FOCAL_ASSIGN_OR_RETURN(const LlamaConfig c, read_config(b.weights(), config, options, v));
  // Without --max-seq the planned context stays within the window, where sliding-window
  // attention is full attention (Phi-3 mini states 2047, Mistral 7B v0.1 4096).
  const int64_t cap = c.sliding_window > 0 ? std::min<int64_t>(2048, c.sliding_window) : 2048;
  FOCAL_ASSIGN_OR_RETURN(const int64_t context,
                         planned_seq_within(options, c.positions, cap, "max_position_embeddings"));
  if (options.max_seq == 0 && cap < 2048 && context == cap && options.warnings != nullptr) {
    options.warnings->push_back("the planned context is " + std::to_string(cap) + ", config.json's sliding_window " +
                                std::to_string(c.sliding_window) + " (sliding-window attention is not supported)");
  }
  FOCAL_RETURN_IF_ERROR(check_window(c, context));
  const DecoderGraph g = decoder_inputs(b, options, context);
  const Matrix embed = b.fetch("model.embed_tokens.weight", {c.vocab, c.hidden});
  const std::string table_name = "model.embed_tokens.weight";
  const GraphBuilder::TiedHead tied =
      c.tied ? b.tied_table(table_name, "lm_head.weight (tied)", embed) : GraphBuilder::TiedHead{};
  const int table = c.tied ? tied.table : b.constant(table_name, embed);
  // Gemma: the normalizer sqrt(hidden) as a tensor of the hidden dtype (f32 here).
  const float embed_scale = v.gemma ? static_cast<float>(std::sqrt(static_cast<double>(c.hidden))) : 1.0f;
  int h = b.embedding("embed_tokens", g.input_ids, table, -1, -1, -1, embed_scale);
  for (int64_t l = 0; l < c.layers; ++l) h = llama_layer(b, g, "model.layers." + std::to_string(l), h, c, v);
  const int head = c.tied ? tied.head : b.param("lm_head.weight", {c.vocab, c.hidden});
  decoder_logits(b, g, h, [&](int x) { return llama_norm(b, "model.norm", x, c, v); }, head, c.vocab);
  return b.status();
}

Status build_llama(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  // Mistral (model_type mistral) is Llama's architecture with a sliding window; Llama's
  // config states none.
  LlamaVariant v;
  FOCAL_ASSIGN_OR_RETURN(const std::string model_type, config_string(config, "model_type", ""));
  v.sliding_window = model_type == "mistral";
  return build_llama_family(config, options, b, v);
}

}  // namespace convert
}  // namespace focal
