// The token ids `focal generate` starts and stops with when no option gives them:
// first the generation ids a converted Hugging Face folder stored
// (generation_config.json's, hyperparameters generation.eos_token_id, ...), then the
// stored tokenizer's special tokens.
#pragma once

#include <cstdint>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"

namespace focal {
namespace cli {

// Hyperparameter `key` (a preset's own, e.g. Marian's decoder_start_id) as a token id,
// else `fallback`: the file's text is never trusted, so anything but digits is absent.
int32_t model_id(const Model& model, const char* key, int32_t fallback);
// Hyperparameter generation.`name` ("eos_token_id") as a token id; -1 when absent or not an id.
int32_t stored_generation_id(const Model& model, const char* name);
// generation.`name` when stored, else `fallback` (the tokenizer's id, or the default).
int32_t generation_id_or(const Model& model, const char* name, int32_t fallback);
// The tokens that end a decoder's generation when no option names one: every id of
// generation_config.json's eos_token_id list (generation.eos_token_ids), else its one id,
// else `fallback` (the tokenizer's eos; -1: none, an empty list).
std::vector<int32_t> default_end_tokens(const Model& model, int32_t fallback);

// Steps a decoder without a KV cache (an RNN seq2seq model) takes at most when the
// model stores no max_length: its plan sets no bound, and every step costs memory for
// the token and its attention row (--max-new 10000000 once took 2.5 GB up front).
constexpr size_t kMaxUncachedDecodeSteps = 4096;

// The tokens a decode can produce when `requested` are asked for, so buffers are sized
// by what the model allows rather than by the request: a KV cache holds
// cache_capacity() positions, `used` of them taken by the prompt (0 for a seq2seq
// decoder, whose cache holds only its own tokens); without a cache, the stored
// max_length hyperparameter (Marian's) or kMaxUncachedDecodeSteps.
size_t decode_step_limit(const Session& session, size_t requested, size_t used);

}  // namespace cli
}  // namespace focal
