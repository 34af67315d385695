#include "presets/encoder_decoder.h"

namespace focal {
namespace convert {

EncoderDecoderDims encoder_decoder_dims(GraphBuilder& b, const PresetOptions& options, int64_t max_src,
                                        int64_t max_tgt, int64_t d_model) {
  EncoderDecoderDims d{seq2seq_dims(b, options, max_src, max_tgt), {d_model, -1}};
  d.max_tgt = max_tgt;
  return d;
}

std::vector<TorchKeys> encode_cross_keys(GraphBuilder& b, const TorchStack& encoder, const TorchStack& decoder,
                                         const EncoderDecoderDims& d, int x, int mask, int memory_out) {
  const int memory = torch_encoder_stack(b, encoder, x, mask, memory_out);
  const int kept_mask = b.copy("src_mask.keep", mask, b.state("src_mask.state", DType::kI32, {d.batch, d.src}));
  std::vector<TorchKeys> cross(static_cast<size_t>(decoder.layers));
  for (int64_t l = 0; l < decoder.layers; ++l) {
    const std::string p = torch_join(decoder.layer_name(l), decoder.layer.names.cross_attention);
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

int decode_with_cache(GraphBuilder& b, const TorchStack& decoder, const EncoderDecoderDims& d, int x,
                      const std::vector<TorchKeys>& cross, int out) {
  const GraphBuilder::Dim context{d.max_tgt, -1};
  int h = x;
  for (int64_t l = 0; l < decoder.layers; ++l) {
    const std::string p = decoder.layer_name(l);
    TorchKeys self;
    self.causal = true;
    self.k_state = b.state(p + ".self_attn.k_cache", DType::kF32, {d.batch, context, d.width});
    self.v_state = b.state(p + ".self_attn.v_cache", DType::kF32, {d.batch, context, d.width});
    const bool last = l + 1 == decoder.layers && !decoder.final_norm;
    h = torch_decoder_layer(b, p, h, self, cross[static_cast<size_t>(l)], decoder.layer, last ? out : -1);
  }
  return decoder.final_norm ? torch_layernorm(b, decoder.prefix + "norm", h, decoder.layer, out) : h;
}

}  // namespace convert
}  // namespace focal
