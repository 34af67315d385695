// The parts of a tokenizer.json around its model: added tokens and the post-processor
// (hf_tokenizer_json.h reads the model, normalizer and pre-tokenizer).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "focal/status.h"
#include "writer/tokenizer_table.h"

namespace focal {
namespace convert {

// A tokenizer.json error: "tokenizer.json: <component>: <what>".
Status hf_refuse(const std::string& component, const std::string& what);

// added_tokens: each joins the vocabulary at its id (a new id must follow the last) and
// is matched in the text first. `normalizable`: whether a token with normalized = true is
// safe (no normalizer that could change its text).
Status read_added_tokens(const nlohmann::json& added, bool normalizable, TokenizerSpec* spec);

// post_processor: special-token templates for one text and a pair; special ids found.
Status read_post_processor(const nlohmann::json& processor, TokenizerSpec* spec);

}  // namespace convert
}  // namespace focal
