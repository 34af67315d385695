// nn.Transformer (encoder-decoder) on embeddings, the module itself or under any prefix
// (`transformer.`, `module.`, ...: presets/module_prefix.h), sizes and layer counts read
// from its tensors, by PyTorch's names: inputs src [batch, src_seq, d] with
// src_key_padding_mask [batch, src_seq] (1 = pad, 0 = token, as PyTorch's True = pad;
// optional, as in PyTorch; it masks the memory too, as memory_key_padding_mask) and tgt
// [batch, seq, d]; output `output` [batch, seq, d]. Two stages:
//   encode: the encoder stack and its final norm, then every decoder layer's
//           cross-attention K and V over the memory, kept as states (once per source);
//   decode: the decoder stack over tgt with a causal KV cache, appended on every run,
//           so tgt can come all at once or one position at a time.
// The config gives nhead, activation, norm_first, layer_norm_eps (PyTorch's names) and
// the planned lengths max_src_len, max_tgt_len (256; --max-seq sets both).
#include "presets/encoder_decoder.h"
#include "presets/preset.h"
#include "presets/torch_layers.h"
#include "presets/torch_sizes.h"

namespace focal {
namespace convert {
namespace {

struct TransformerConfig {
  TorchStack encoder, decoder;
  int64_t max_src = 0, max_tgt = 0;
};

Result<TransformerConfig> read_config(WeightSource& weights, const nlohmann::json& config,
                                      const PresetOptions& options) {
  TransformerConfig c;
  FOCAL_ASSIGN_OR_RETURN(const std::string prefix, find_module_prefix(weights, config, options, torch_transformer_search()));
  FOCAL_ASSIGN_OR_RETURN(c.encoder, read_torch_stack(weights, config, options, prefix + "encoder.", false,
                                                     "num_encoder_layers"));
  FOCAL_ASSIGN_OR_RETURN(c.decoder, read_torch_stack(weights, config, options, prefix + "decoder.", true,
                                                     "num_decoder_layers"));
  if (c.decoder.layer.d_model != c.encoder.layer.d_model) {
    return preset_refused(options, "the decoder's d_model " + std::to_string(c.decoder.layer.d_model) + " (" +
                                       c.decoder.d_model_source + ") differs from the encoder's " +
                                       std::to_string(c.encoder.layer.d_model) + " (" + c.encoder.d_model_source + ")");
  }
  const Result<int64_t> src = planned_or_config(options, config, "max_src_len", 256);
  const Result<int64_t> tgt = planned_or_config(options, config, "max_tgt_len", 256);
  if (!src.ok() || !tgt.ok()) return config_error(options, src.ok() ? tgt.status() : src.status());
  c.max_src = src.value();
  c.max_tgt = tgt.value();
  return c;
}

}  // namespace

Status build_torch_transformer(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TransformerConfig settings, read_config(b.weights(), config, options));
  const EncoderDecoderDims d =
      encoder_decoder_dims(b, options, settings.max_src, settings.max_tgt, settings.encoder.layer.d_model);
  const int src = b.input("src", DType::kF32, {d.batch, d.src, d.width});
  const int padding = torch_padding_mask_input(b, "src_key_padding_mask", d.batch, d.src);
  const int tgt = b.input("tgt", DType::kF32, {d.batch, d.tgt, d.width});
  b.writer().begin_stage("encode");
  const int src_mask = torch_valid_mask(b, padding, "src_key_padding_mask", d.batch, d.src);
  const std::vector<TorchKeys> cross = encode_cross_keys(b, settings.encoder, settings.decoder, d, src, src_mask);
  b.writer().begin_stage("decode");
  decode_with_cache(b, settings.decoder, d, tgt, cross, b.output("output", {d.batch, d.tgt, d.width}));
  return b.status();
}

}  // namespace convert
}  // namespace focal
