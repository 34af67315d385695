// The two stages every transformer encoder-decoder here builds (torch-transformer,
// marian), whatever embeds its tokens before and whatever head follows:
//   encode: the encoder stack over x, then each decoder layer's cross-attention K and V
//           over the memory, kept as states with the source mask (once per source);
//   decode: the decoder stack with a causal KV cache per layer, appended on every run.
// The caller begins each stage (ModelWriter::begin_stage) and adds its inputs first.
#pragma once

#include <vector>

#include "presets/decoder_common.h"
#include "presets/torch_layers.h"

namespace focal {
namespace convert {

struct EncoderDecoderDims : Seq2SeqDims {
  GraphBuilder::Dim width;
  int64_t max_tgt = 0;  // the KV caches' length
};

// Symbols "batch" (options.max_batch), "src_seq" (max_src) and "seq" (max_tgt, also
// the KV caches' length), and the fixed width d_model.
EncoderDecoderDims encoder_decoder_dims(GraphBuilder& b, const PresetOptions& options, int64_t max_src,
                                        int64_t max_tgt, int64_t d_model);

// The encoder over x [batch, src, width] with mask [batch, src] (into `memory_out` when
// not -1, e.g. a model output), and the decoder layers' precomputed cross-attention keys.
std::vector<TorchKeys> encode_cross_keys(GraphBuilder& b, const TorchStack& encoder, const TorchStack& decoder,
                                         const EncoderDecoderDims& d, int x, int mask, int memory_out = -1);

// The decoder over x [batch, tgt, width] with KV caches, then its final norm if any.
int decode_with_cache(GraphBuilder& b, const TorchStack& decoder, const EncoderDecoderDims& d, int x,
                      const std::vector<TorchKeys>& cross, int out = -1);

}  // namespace convert
}  // namespace focal
