// What the decoder-only presets share: the symbols and inputs of a KV-cached decoder,
// its per-layer cache states, and the head that turns the last position into logits.
#pragma once

#include "presets/preset.h"

namespace focal {
namespace convert {

struct DecoderGraph {
  GraphBuilder::Dim batch, seq, context;  // context: the KV caches' length (fixed)
  int input_ids = -1;
  bool all_positions = false;  // --logits all: logits [batch, seq, vocab]
};

// Symbols "batch" and "seq" (new tokens per run, up to the planned context), the input
// input_ids [batch, seq]; takes options.logits_all.
DecoderGraph decoder_inputs(GraphBuilder& b, const PresetOptions& options, int64_t max_context);
// An encoder-decoder's symbols: "batch", "src_seq" (source positions) and "seq" (target
// positions per run), planned at max_batch, max_src and max_tgt.
struct Seq2SeqDims {
  GraphBuilder::Dim batch, src, tgt;
};
Seq2SeqDims seq2seq_dims(GraphBuilder& b, const PresetOptions& options, int64_t max_src, int64_t max_tgt);
// K and V caches [batch, context, kv_features] for layer `name`.
void kv_states(GraphBuilder& b, const DecoderGraph& g, const std::string& name, int64_t kv_features,
               int* k, int* v);
// The LM head: `norm` then `head` (packed [vocab, d]) on the last position, logits
// [batch, vocab] (the default: a decode step never pays for the vocabulary over a whole
// prompt), or on every position, logits [batch, seq, vocab] (scoring, perplexity).
// norm(x) is a callable taking and returning a tensor; `bias` [vocab] is optional (-1).
template <typename Norm>
int decoder_logits(GraphBuilder& b, const DecoderGraph& g, int h, Norm norm, int head, int64_t vocab, int bias = -1) {
  if (g.all_positions) {
    return b.dense("lm_head", norm(h), head, bias, fb::Activation_None,
                   b.output("logits", {g.batch, g.seq, {vocab, -1}}));
  }
  const int last = b.pool("last_position", h, -1, fb::PoolMode_Last);
  return b.dense("lm_head", norm(last), head, bias, fb::Activation_None,
                 b.output("logits", {g.batch, {vocab, -1}}));
}

}  // namespace convert
}  // namespace focal
