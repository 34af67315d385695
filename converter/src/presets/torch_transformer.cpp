// nn.Transformer (encoder-decoder) on embeddings, the module itself or under any prefix
// (`transformer.`, `module.`, ...: presets/module_prefix.h), sizes and layer counts read
// from its tensors: inputs src [batch, src_seq, d] with src_mask [batch, src_seq]
// (1 = token, 0 = pad) and tgt [batch, seq, d]; output `output` [batch, seq, d]. Two stages:
//   encode: the encoder stack and its final norm, then every decoder layer's
//           cross-attention K and V over the memory, kept as states (once per source);
//   decode: the decoder stack over tgt with a causal KV cache, appended on every run,
//           so tgt can come all at once or one position at a time.
// The config gives nhead, activation, norm_first, layer_norm_eps (PyTorch's names) and
// the planned lengths max_src_len, max_tgt_len (256; --max-seq sets both).
#include "presets/decoder_common.h"
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

struct Dims : Seq2SeqDims {
  GraphBuilder::Dim width;
};

// Stage encode: the encoder over src, then each decoder layer's cross-attention K and V
// over the memory, kept as states with the source mask.
std::vector<TorchKeys> encode_stage(GraphBuilder& b, const TransformerConfig& settings, const Dims& d, int src,
                                    int src_mask) {
  b.writer().begin_stage("encode");
  const int memory = torch_encoder_stack(b, settings.encoder, src, src_mask);
  const int kept_mask = b.copy("src_mask.keep", src_mask, b.state("src_mask.state", DType::kI32, {d.batch, d.src}));
  const TorchStack& decoder = settings.decoder;
  std::vector<TorchKeys> cross(static_cast<size_t>(decoder.layers));
  for (int64_t l = 0; l < decoder.layers; ++l) {
    const std::string p = decoder.layer_name(l) + ".multihead_attn";
    TorchKeys& keys = cross[static_cast<size_t>(l)];
    keys.precomputed = true;
    keys.key_mask = kept_mask;
    keys.k_state = torch_project_keys(b, p, 1, memory, decoder.layer,
                                      b.state(p + ".k", DType::kF32, {d.batch, d.src, d.width}));
    keys.v_state = torch_project_keys(b, p, 2, memory, decoder.layer,
                                      b.state(p + ".v", DType::kF32, {d.batch, d.src, d.width}));
  }
  return cross;
}

// Stage decode: the decoder over tgt with a causal KV cache per layer, then its norm.
void decode_stage(GraphBuilder& b, const TransformerConfig& settings, const Dims& d, int tgt,
                  const std::vector<TorchKeys>& cross) {
  b.writer().begin_stage("decode");
  const TorchStack& decoder = settings.decoder;
  const int out = b.output("output", {d.batch, d.tgt, d.width});
  const GraphBuilder::Dim context{settings.max_tgt, -1};
  int h = tgt;
  for (int64_t l = 0; l < decoder.layers; ++l) {
    const std::string p = decoder.layer_name(l);
    TorchKeys self;
    self.causal = true;
    self.k_state = b.state(p + ".self_attn.k_cache", DType::kF32, {d.batch, context, d.width});
    self.v_state = b.state(p + ".self_attn.v_cache", DType::kF32, {d.batch, context, d.width});
    const bool last = l + 1 == decoder.layers && !decoder.final_norm;
    h = torch_decoder_layer(b, p, h, self, cross[static_cast<size_t>(l)], decoder.layer, last ? out : -1);
  }
  if (decoder.final_norm) torch_layernorm(b, decoder.prefix + "norm", h, decoder.layer, out);
}

}  // namespace

Status build_torch_transformer(const nlohmann::json& config, const PresetOptions& options, GraphBuilder& b) {
  FOCAL_ASSIGN_OR_RETURN(const TransformerConfig settings, read_config(b.weights(), config, options));
  const Dims d{seq2seq_dims(b, options, settings.max_src, settings.max_tgt), {settings.encoder.layer.d_model, -1}};
  const int src = b.input("src", DType::kF32, {d.batch, d.src, d.width});
  const int src_mask = b.input("src_mask", DType::kI32, {d.batch, d.src});
  const int tgt = b.input("tgt", DType::kF32, {d.batch, d.tgt, d.width});
  const std::vector<TorchKeys> cross = encode_stage(b, settings, d, src, src_mask);
  decode_stage(b, settings, d, tgt, cross);
  return b.status();
}

}  // namespace convert
}  // namespace focal
