// PyTorch nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerDecoderLayer
// by their state_dict names, shared by the torch-encoder and torch-transformer presets.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "presets/graph_builder.h"
#include "presets/preset.h"

namespace focal {
namespace convert {

// What a layer calls its parts: PyTorch's nn.Transformer*Layer (the defaults: packed
// in_proj, norm1..norm3, linear1/2, multihead_attn) or the Hugging Face BART family's
// (bart_naming(): q_proj/k_proj/v_proj, self_attn_layer_norm, encoder_attn, fc1/fc2, ...).
struct TorchNaming {
  bool packed_projections = true;  // in_proj_weight [3d, d]; false: q_proj, k_proj, v_proj [d, d] each
  const char* self_norm = "norm1";          // after self-attention
  const char* cross_attention = "multihead_attn";
  const char* cross_norm = "norm2";         // after a decoder layer's cross-attention
  const char* encoder_ffn_norm = "norm2";   // after an encoder layer's feed-forward
  const char* decoder_ffn_norm = "norm3";   // after a decoder layer's feed-forward
  const char* up = "linear1";               // feed-forward [ffn, d]
  const char* down = "linear2";             // feed-forward [d, ffn]
};
// MarianEncoderLayer / MarianDecoderLayer (BartEncoderLayer's copies) by their names.
TorchNaming bart_naming();

struct TorchLayerConfig {
  TorchNaming names;
  int64_t d_model = 0;
  int64_t heads = 0;
  int64_t feedforward = 0;
  fb::Activation activation = fb::Activation_Relu;
  bool norm_first = false;
  float epsilon = 1e-5f;
  bool bias = true;  // false: no projection, feed-forward or norm biases (PyTorch's bias=False)
};

// "prefix.name", or "name" for a module at the top of the state_dict (prefix "").
std::string torch_join(const std::string& prefix, const std::string& name);

// An nn.TransformerEncoder or nn.TransformerDecoder stack (presets/torch_sizes.h reads
// it), or one nn.TransformerEncoderLayer / nn.TransformerDecoderLayer saved alone.
struct TorchStack {
  std::string prefix;          // "" or ending with '.': where layers.{i} and norm are
  bool single_layer = false;   // the layer itself is at `prefix` (no layers.{i}, no norm)
  int64_t layers = 0;          // layers.0 .. layers.{layers - 1}
  bool final_norm = false;     // the stack's own `norm`
  TorchLayerConfig layer;      // d_model, dim_feedforward and bias from the tensors
  std::string d_model_source;  // the tensor and shape d_model was read from, for messages
  // Layer i's module name, without the trailing dot ("" for a layer saved alone).
  std::string layer_name(int64_t i) const {
    if (single_layer) return prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
    return prefix + "layers." + std::to_string(i);
  }
};

// The planned length of a sequence: --max-seq when given, else config[key] (or fallback).
Result<int64_t> planned_or_config(const PresetOptions& options, const nlohmann::json& config, const char* key,
                                  int64_t fallback);

// Where an attention block's keys and values come from.
// PyTorch's key padding mask as an input: `name` [batch, seq] i32, 1 (True) = padding,
// as PyTorch's src_key_padding_mask; optional, as in PyTorch: left unset, nothing is
// padding. torch_valid_mask turns it into the engine's sense (1 = token) for the ops.
int torch_padding_mask_input(GraphBuilder& b, const std::string& name, const GraphBuilder::Dim& batch,
                             const GraphBuilder::Dim& seq);
int torch_valid_mask(GraphBuilder& b, int padding_mask, const std::string& name, const GraphBuilder::Dim& batch,
                     const GraphBuilder::Dim& seq);

struct TorchKeys {
  int memory = -1;      // cross-attention source [B, Sk, d]; -1: self-attention
  int key_mask = -1;    // [B, Sk] i32
  int k_state = -1;     // KV cache, or precomputed cross-attention K/V (with
  int v_state = -1;     // precomputed = true)
  bool precomputed = false;
  bool causal = false;
};

// Module names: `prefix` is a module's full name without the trailing dot ("" for one
// at the top of the state_dict, "module.layers.0" under a wrapper).
// nn.MultiheadAttention `prefix` (in_proj_weight [3d, d], in_proj_bias, out_proj).
int torch_attention(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c,
                    const TorchKeys& keys, int out = -1);
// K or V (part 1 or 2 of in_proj) of a cross-attention block over `memory`, written
// into the state `out` (the encode stage of an encoder-decoder).
int torch_project_keys(GraphBuilder& b, const std::string& prefix, int part, int memory,
                       const TorchLayerConfig& c, int out);
// linear1 -> activation -> linear2 of a layer `prefix`.
int torch_feedforward(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c);
// One nn.TransformerEncoderLayer.
int torch_encoder_layer(GraphBuilder& b, const std::string& prefix, int x, int key_mask,
                        const TorchLayerConfig& c, int out = -1);
// One nn.TransformerDecoderLayer: causal self-attention over a KV cache, then
// cross-attention over precomputed states.
int torch_decoder_layer(GraphBuilder& b, const std::string& prefix, int x, const TorchKeys& self,
                        const TorchKeys& cross, const TorchLayerConfig& c, int out = -1);
// Every layer of an encoder stack, then its final norm when it has one.
int torch_encoder_stack(GraphBuilder& b, const TorchStack& s, int x, int key_mask, int out = -1);
// nn.LayerNorm `prefix` (weight, bias).
int torch_layernorm(GraphBuilder& b, const std::string& prefix, int x, const TorchLayerConfig& c,
                    int out = -1);

}  // namespace convert
}  // namespace focal
