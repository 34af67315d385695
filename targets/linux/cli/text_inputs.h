// Model inputs from text (focal run --text): the model's stored tokenizer encodes it as
// transformers' tokenizer(text, text_pair) does for an encoder, one row.
#pragma once

#include <string>

#include "focal/session.h"

namespace focal {
namespace cli {

// Encodes `text` (and `pair`, when not null) with the model's tokenizer and the
// post-processor's special tokens ([CLS] A [SEP] B [SEP]) and sets, as a batch of one row:
// input_ids [1, n]; attention_mask [1, n] of ones, when the model has one; token_type_ids
// [1, n], 0 over the first text with the specials the template gives it alone and 1 over
// the rest (BERT's segments), when the model has one. A model without input_ids is refused.
// Other inputs are the caller's (the run refuses one left unset, naming it).
Status set_text_inputs(Session& session, const std::string& text, const std::string* pair);

}  // namespace cli
}  // namespace focal
