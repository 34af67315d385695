#include "presets/decoder_common.h"

namespace focal {
namespace convert {

DecoderGraph decoder_inputs(GraphBuilder& b, const PresetOptions& options, int64_t max_context) {
  DecoderGraph g;
  g.batch = {options.max_batch, b.symbol("batch", options.max_batch)};
  g.seq = {max_context, b.symbol("seq", max_context)};
  g.context = {max_context, -1};
  g.input_ids = b.input("input_ids", DType::kI32, {g.batch, g.seq});
  g.all_positions = options.logits_all;
  if (options.logits_option_taken != nullptr) *options.logits_option_taken = true;
  return g;
}

Seq2SeqDims seq2seq_dims(GraphBuilder& b, const PresetOptions& options, int64_t max_src, int64_t max_tgt) {
  Seq2SeqDims d;
  d.batch = {options.max_batch, b.symbol("batch", options.max_batch)};
  d.src = {max_src, b.symbol("src_seq", max_src)};
  d.tgt = {max_tgt, b.symbol("seq", max_tgt)};
  return d;
}

void kv_states(GraphBuilder& b, const DecoderGraph& g, const std::string& name, int64_t kv_features,
               int* k, int* v) {
  *k = b.state(name + ".k_cache", DType::kF32, {g.batch, g.context, {kv_features, -1}});
  *v = b.state(name + ".v_cache", DType::kF32, {g.batch, g.context, {kv_features, -1}});
}

}  // namespace convert
}  // namespace focal
