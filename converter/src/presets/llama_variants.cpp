// The presets built like Llama (llama_family.h), each its config defaults and what
// sets it apart, from transformers' configuration_<model>.py and modeling_<model>.py:
//  - qwen2 (Qwen2, Qwen2.5): q/k/v biases (found by name, as in llama), no o bias,
//    tied embeddings in the small sizes, an optional sliding window (use_sliding_window);
//  - qwen3 (Qwen3 dense): Qwen2's layers without q/k/v biases (attention_bias false; a
//    checkpoint holding them keeps them), with q_norm and k_norm, RMSNorm over head_dim per
//    head (rms_norm_eps) of the projected queries and keys before RoPE; head_dim from
//    the config (128 in the hub's sizes, not hidden_size / heads), tie_word_embeddings
//    as stated (true in the small sizes), an optional sliding window as Qwen2's;
//  - gemma: RMSNorm by (1 + w), embeddings times sqrt(hidden), GeGLU with tanh GELU,
//    multi-query attention with head_dim from the config, tied head;
//  - phi3 (Phi-3, Phi-3.5 mini): fused qkv_proj and gate_up_proj, no biases, a sliding
//    window (sliding_window), rms_norm_eps 1e-5.
#include "presets/llama_family.h"

namespace focal {
namespace convert {

Status build_qwen2(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  LlamaVariant v;
  v.default_heads = 28;
  v.default_positions = 32768;
  v.sliding_window = true;
  return build_llama_family(config, options, b, v);
}

Status build_qwen3(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  LlamaVariant v;
  v.default_heads = 32;
  v.default_head_dim = 128;  // Qwen3Config's, whatever hidden_size / heads is
  v.default_positions = 32768;
  v.sliding_window = true;
  v.qk_norm = true;
  return build_llama_family(config, options, b, v);
}

Status build_gemma(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  LlamaVariant v;
  v.default_heads = 16;
  v.default_positions = 8192;
  v.default_activation = "gelu_pytorch_tanh";
  v.default_tied = true;
  v.gemma = true;
  return build_llama_family(config, options, b, v);
}

Status build_phi3(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  LlamaVariant v;
  v.default_positions = 4096;
  v.default_epsilon = 1e-5;
  v.fused = true;
  v.sliding_window = true;
  return build_llama_family(config, options, b, v);
}

}  // namespace convert
}  // namespace focal
