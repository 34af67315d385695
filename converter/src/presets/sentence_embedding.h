// The sentence-transformers tail (Pooling, then Normalize) over an encoder's
// last_hidden_state, for the encoder presets (bert, roberta, distilbert).
#pragma once

#include "presets/bert_layers.h"

namespace focal {
namespace convert {

// Adds output sentence_embedding [B, hidden] from h [B, S, hidden] when options.sentence
// asks for it (and says so through options.sentence_taken); nothing otherwise.
void add_sentence_embedding(GraphBuilder& b, const PresetOptions& options, int h, const EncoderInputs& in);

}  // namespace convert
}  // namespace focal
