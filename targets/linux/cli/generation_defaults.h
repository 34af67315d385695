// The token ids `focal generate` starts and stops with when no option gives them:
// first the generation ids a converted Hugging Face folder stored
// (generation_config.json's, hyperparameters generation.eos_token_id, ...), then the
// stored tokenizer's special tokens.
#pragma once

#include <cstdint>

#include "focal/model.h"

namespace focal {
namespace cli {

// Hyperparameter `key` (a preset's own, e.g. Marian's decoder_start_id) as a token id,
// else `fallback`: the file's text is never trusted, so anything but digits is absent.
int32_t model_id(const Model& model, const char* key, int32_t fallback);
// Hyperparameter generation.`name` ("eos_token_id") as a token id; -1 when absent or not an id.
int32_t stored_generation_id(const Model& model, const char* name);
// generation.`name` when stored, else `fallback` (the tokenizer's id, or the default).
int32_t generation_id_or(const Model& model, const char* name, int32_t fallback);

}  // namespace cli
}  // namespace focal
