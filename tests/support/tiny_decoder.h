// A tiny KV-cached decoder, built through the ModelWriter the converter uses:
//   ids [1, seq] -> embedding (+ learned positions) -> causal attention with a KV cache
//   (2 heads, head_dim 4) -> last position -> logits [1, vocab].
// `kv_cache` is the cache's storage (ModelWriter::set_kv_cache_type); `break_stage_rule`
// carries an activation from one stage to the next (refused by the loader).
#pragma once

#include <cstdint>
#include <vector>

#include "focal/tensor.h"

namespace focal {
namespace testing {

constexpr int64_t kTinyDecoderVocab = 11, kTinyDecoderWidth = 8, kTinyDecoderContext = 6;

std::vector<uint8_t> tiny_decoder(DType kv_cache = DType::kF32, bool break_stage_rule = false);

// The same decoder with its cache states given as `k_state` / `v_state` dtypes directly
// (no scale states): for the loader's refusals of malformed caches.
std::vector<uint8_t> tiny_decoder_with_states(DType k_state, DType v_state);

}  // namespace testing
}  // namespace focal
