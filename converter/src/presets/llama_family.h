// The decoders built like Llama (HF names, config.json): RMSNorm, half-split RoPE,
// grouped-query attention, a gated MLP, a KV cache and an untied or tied LM head. The
// presets llama, qwen2, qwen3, gemma and phi3 differ only in what a LlamaVariant states.
#pragma once

#include "presets/preset.h"

namespace focal {
namespace convert {

struct LlamaVariant {
  // transformers' config defaults (configuration_<model>.py) for keys a config may omit.
  int64_t default_heads = 32, default_positions = 2048;
  double default_epsilon = 1e-6;
  const char* default_activation = "silu";  // hidden_act
  bool default_tied = false;                // tie_word_embeddings
  int64_t default_head_dim = 0;             // head_dim; 0: hidden_size / num_attention_heads
  // Gemma: RMSNorm scales by (1 + w) (folded into the stored weight, in f32 as HF
  // computes it) and the embeddings by sqrt(hidden) (rounded to f32, the hidden dtype;
  // the tied head reads the unscaled table). Its config names the MLP's activation
  // hidden_activation (hidden_act when absent).
  bool gemma = false;
  // Phi-3: q, k, v stacked in self_attn.qkv_proj, gate and up in mlp.gate_up_proj.
  bool fused = false;
  // Phi-3 and Qwen2 may state a sliding attention window: refused when the planned
  // context exceeds it (within it, full causal attention is the same thing).
  bool sliding_window = false;
  // Qwen3: self_attn.q_norm and k_norm, RMSNorm over each head's head_dim values of the
  // projected queries and keys, before RoPE. Without it a checkpoint holding them is refused.
  bool qk_norm = false;
};

Status build_llama_family(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b,
                          const LlamaVariant& variant);

}  // namespace convert
}  // namespace focal
