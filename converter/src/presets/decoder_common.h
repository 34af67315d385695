// What the decoder-only presets share: the symbols and inputs of a KV-cached decoder,
// its per-layer cache states, and the head that turns the last position into logits.
#pragma once

#include "presets/preset.h"

namespace focal {
namespace convert {

struct DecoderGraph {
  GraphBuilder::Dim batch, seq, context;  // context: the KV caches' length (fixed)
  int input_ids = -1;
};

// Symbols "batch" and "seq" (new tokens per run, up to the planned context), the input
// input_ids [batch, seq].
DecoderGraph decoder_inputs(GraphBuilder& b, const PresetOptions& options, int64_t max_context);
// K and V caches [batch, context, kv_features] for layer `name`.
void kv_states(GraphBuilder& b, const DecoderGraph& g, const std::string& name, int64_t kv_features,
               int* k, int* v);
// logits [batch, vocab] of the last position: `norm` applied to it, then `head`
// (packed [vocab, d]). norm(x) is a callable taking and returning a tensor.
template <typename Norm>
int last_position_logits(GraphBuilder& b, const DecoderGraph& g, int h, Norm norm, int head, int64_t vocab) {
  const int last = b.pool("last_position", h, -1, fb::PoolMode_Last);
  return b.dense("lm_head", norm(last), head, -1, fb::Activation_None,
                 b.output("logits", {g.batch, {vocab, -1}}));
}

}  // namespace convert
}  // namespace focal
