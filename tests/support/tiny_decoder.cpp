#include "support/tiny_decoder.h"

#include "model_writer.h"
#include "support/random_values.h"

namespace focal {
namespace testing {
namespace {

constexpr int64_t kVocab = kTinyDecoderVocab, kWidth = kTinyDecoderWidth, kContext = kTinyDecoderContext;

std::vector<uint8_t> build(DType kv_cache, DType k_state, DType v_state, bool break_stage_rule) {
  ModelWriter w;
  w.set_kv_cache_type(kv_cache);
  const int batch = w.add_symbol("batch", 1);
  const int seq = w.add_symbol("seq", kContext);
  const int ids = w.add_input("input_ids", DType::kI32, {1, kContext}, {batch, seq});
  uint32_t seed = 7;
  const auto weights = [&](const char* name, int64_t rows, int64_t cols) {
    return w.add_constant_f32(name, {rows, cols}, random_values(size_t(rows * cols), ++seed));
  };
  const int table = weights("table", kVocab, kWidth);
  const int positions = weights("positions", kContext, kWidth);
  const int x = w.add_activation("x", DType::kF32, {1, kContext, kWidth}, {batch, seq, -1});
  if (break_stage_rule) w.begin_stage("embed");
  w.add_embedding("embed", ids, table, positions, -1, -1, x);
  if (break_stage_rule) w.begin_stage("rest");
  ModelWriter::MultiHeadAttentionSpec s;
  s.x = x;
  s.wq = weights("wq", kWidth, kWidth);
  s.wk = weights("wk", kWidth, kWidth);
  s.wv = weights("wv", kWidth, kWidth);
  s.wo = weights("wo", kWidth, kWidth);
  s.k_state = w.add_state("k_cache", k_state, {1, kContext, kWidth}, {batch, -1, -1});
  s.v_state = w.add_state("v_cache", v_state, {1, kContext, kWidth}, {batch, -1, -1});
  s.num_heads = s.num_kv_heads = 2;
  s.head_dim = 4;
  s.causal = true;
  const int a = w.add_activation("a", DType::kF32, {1, kContext, kWidth}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, a);
  const int last = w.add_activation("last", DType::kF32, {1, kWidth}, {batch, -1});
  w.add_pool("last", a, -1, last, fb::PoolMode_Last);
  const int logits = w.add_output("logits", DType::kF32, {1, kVocab}, {batch, -1});
  w.add_dense("head", last, weights("head", kVocab, kWidth), -1, logits);
  return w.finish().value();
}

}  // namespace

std::vector<uint8_t> tiny_decoder(DType kv_cache, bool break_stage_rule) {
  return build(kv_cache, DType::kF32, DType::kF32, break_stage_rule);
}

std::vector<uint8_t> tiny_decoder_with_states(DType k_state, DType v_state) {
  return build(DType::kF32, k_state, v_state, false);
}

}  // namespace testing
}  // namespace focal
