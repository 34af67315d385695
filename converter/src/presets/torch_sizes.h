// The sizes of PyTorch's transformer modules read from their tensors' shapes, and the
// hyperparameters no tensor can tell, from the config under PyTorch's constructor
// argument names (nhead, activation, norm_first, layer_norm_eps, batch_first). Config
// keys for sizes the tensors state (d_model, dim_feedforward, num_layers, ...) are still
// accepted, and must agree with the tensors.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "presets/module_prefix.h"
#include "presets/preset.h"
#include "presets/torch_layers.h"

namespace focal {
namespace convert {

// The stack under `prefix` (an nn.TransformerDecoder when `decoder`), layers counted
// and checked against layer 0; or the one layer saved alone there (`single_layer`).
Result<TorchStack> infer_torch_stack(WeightSource& weights, const PresetOptions& options, const std::string& prefix,
                                     bool decoder, bool single_layer = false);

// d_model of an nn.MultiheadAttention under `prefix` from its in_proj_weight [3E, E],
// and whether it has biases; `source` gets the tensor and shape, for messages.
Status infer_torch_attention(WeightSource& weights, const PresetOptions& options, const std::string& prefix,
                             TorchLayerConfig* c, std::string* source);

// How the config names the module's width and head count: nn.Transformer* take d_model
// and nhead, nn.MultiheadAttention embed_dim and num_heads.
struct TorchNames {
  const char* width = "d_model";
  const char* heads = "nhead";
};

// Fills c's heads (required: an error says how to pass it), activation (relu, gelu;
// default relu), norm_first (false), epsilon (layer_norm_eps, 1e-5); checks batch_first
// is a boolean and that width and dim_feedforward, when given, agree with c.
Status read_torch_hyperparameters(const nlohmann::json& config, const PresetOptions& options, const TorchNames& names,
                                  const std::string& width_source, TorchLayerConfig* c);

// The stack under `prefix` with its hyperparameters (read_torch_hyperparameters); the
// config's `layers_key` (num_layers, num_encoder_layers, ...), when given, must agree.
Result<TorchStack> read_torch_stack(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options,
                                    const std::string& prefix, bool decoder, const char* layers_key,
                                    bool single_layer = false);
// The one nn.TransformerEncoder (nn.TransformerDecoder when `decoder`) the checkpoint
// holds, under any prefix, read as read_torch_stack does; failing any, the one
// nn.TransformerEncoderLayer (DecoderLayer) saved alone.
Result<TorchStack> find_torch_stack(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options,
                                    bool decoder, const char* layers_key);

// What find_module_prefix looks for (presets/module_prefix.h).
ModuleSearch torch_encoder_search();      // an nn.TransformerEncoder (no cross-attention)
ModuleSearch torch_decoder_search();      // an nn.TransformerDecoder
ModuleSearch torch_encoder_layer_search();  // one nn.TransformerEncoderLayer
ModuleSearch torch_decoder_layer_search();  // one nn.TransformerDecoderLayer
ModuleSearch torch_transformer_search();  // an nn.Transformer (encoder. and decoder.)
ModuleSearch torch_attention_search();    // an nn.MultiheadAttention

// A config key the tensors already determine: absent, or equal to `inferred` (read
// from `source`); otherwise an error naming both.
Status config_agrees(const nlohmann::json& config, const PresetOptions& options, const char* key, int64_t inferred,
                     const std::string& source);

}  // namespace convert
}  // namespace focal
