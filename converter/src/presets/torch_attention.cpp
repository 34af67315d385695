// A bare nn.MultiheadAttention (torch-mha) and an nn.TransformerDecoder on embeddings
// (torch-decoder), by their PyTorch names, the module itself or under any prefix
// (presets/module_prefix.h), sizes read from the tensors (presets/torch_sizes.h):
//   torch-mha      `in_proj_weight` [3E, E], `in_proj_bias` (optional: bias=False),
//                  `out_proj.*`. Inputs query [batch, q_seq, E], key_value [batch, seq, E]
//                  (keys and values from one source, as in self- and cross-attention) and
//                  key_padding_mask [batch, seq] (1 = padding, as PyTorch's True = pad;
//                  optional, as in PyTorch); output output. config: num_heads
//                  (or nhead), max_len (512; --max-seq).
//   torch-decoder  `layers.{i}.*` (nn.TransformerDecoderLayer: self_attn, multihead_attn,
//                  linear1/2, norm1/2/3) and `norm` (optional), or one layer saved alone.
//                  Inputs tgt [batch, seq, d] (causal), memory [batch, src_seq, d] and
//                  memory_key_padding_mask [batch, src_seq] (1 = padding, as PyTorch's
//                  True = pad; optional, as in PyTorch); output output. config: nhead, activation, norm_first, layer_norm_eps,
//                  max_len (512; --max-seq).
#include "presets/preset.h"
#include "presets/torch_layers.h"
#include "presets/torch_sizes.h"

namespace focal {
namespace convert {
namespace {

struct MhaConfig {
  std::string prefix;  // the module's name without the trailing dot ("" at the top)
  TorchLayerConfig layer;
  int64_t max_len = 0;
};

Result<MhaConfig> read_mha_config(WeightSource& weights, const nlohmann::json& config, const PresetOptions& options) {
  MhaConfig c;
  FOCAL_ASSIGN_OR_RETURN(const std::string prefix, find_module_prefix(weights, config, options, torch_attention_search()));
  c.prefix = prefix.empty() ? prefix : prefix.substr(0, prefix.size() - 1);
  std::string source;
  FOCAL_RETURN_IF_ERROR(infer_torch_attention(weights, options, prefix, &c.layer, &source));
  // PyTorch's own argument is num_heads; nhead (the nn.Transformer* name) works too.
  const bool nhead = config.is_object() && config.contains("nhead") && !config.contains("num_heads");
  FOCAL_RETURN_IF_ERROR(read_torch_hyperparameters(config, options, TorchNames{"embed_dim", nhead ? "nhead" : "num_heads"},
                                                   source, &c.layer));
  const Result<int64_t> max_len = planned_or_config(options, config, "max_len", 512);
  if (!max_len.ok()) return config_error(options, max_len.status());
  c.max_len = max_len.value();
  return c;
}

// Keys and values from one input [B, S, D] (`source`) with its key padding mask [B, S]
// (`mask`, PyTorch's sense: 1 = pad).
TorchKeys masked_source(GraphBuilder& b, const char* source, const char* mask,
                        const std::vector<GraphBuilder::Dim>& dims) {
  TorchKeys keys;
  keys.memory = b.input(source, DType::kF32, dims);
  const int padding = torch_padding_mask_input(b, mask, dims[0], dims[1]);
  keys.key_mask = torch_valid_mask(b, padding, mask, dims[0], dims[1]);
  return keys;
}

}  // namespace

Status build_torch_mha(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const MhaConfig settings, read_mha_config(b.weights(), config, options));
  const TorchLayerConfig& c = settings.layer;
  const int64_t max_len = settings.max_len;
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim Q{max_len, b.symbol("q_seq", max_len)}, S{max_len, b.symbol("seq", max_len)};
  const GraphBuilder::Dim E{c.d_model, -1};
  const int query = b.input("query", DType::kF32, {B, Q, E});
  const TorchKeys keys = masked_source(b, "key_value", "key_padding_mask", {B, S, E});
  torch_attention(b, settings.prefix, query, c, keys, b.output("output", {B, Q, E}));
  return b.status();
}

Status build_torch_decoder(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TorchStack s, find_torch_stack(b.weights(), config, options, true, "num_layers"));
  const Result<int64_t> max_len = planned_or_config(options, config, "max_len", 512);
  if (!max_len.ok()) return config_error(options, max_len.status());
  const GraphBuilder::Dim B{options.max_batch, b.symbol("batch", options.max_batch)};
  const GraphBuilder::Dim T{max_len.value(), b.symbol("seq", max_len.value())};
  const GraphBuilder::Dim S{max_len.value(), b.symbol("src_seq", max_len.value())}, D{s.layer.d_model, -1};
  const int tgt = b.input("tgt", DType::kF32, {B, T, D});
  const TorchKeys cross = masked_source(b, "memory", "memory_key_padding_mask", {B, S, D});
  TorchKeys self;
  self.causal = true;
  const int out = b.output("output", {B, T, D});
  int h = tgt;
  for (int64_t l = 0; l < s.layers; ++l) {
    const bool last = l + 1 == s.layers && !s.final_norm;
    h = torch_decoder_layer(b, s.layer_name(l), h, self, cross, s.layer, last ? out : -1);
  }
  if (s.final_norm) torch_layernorm(b, s.prefix + "norm", h, s.layer, out);
  return b.status();
}

}  // namespace convert
}  // namespace focal
