// A sentence-transformers folder's pipeline (modules.json): the Transformer module (the
// encoder, in the folder's root or a subfolder), then Pooling (1_Pooling/config.json)
// and optionally Normalize, as the model's output sentence_embedding.
#pragma once

#include <string>

#include "presets/preset.h"

namespace focal {
namespace convert {

struct SentenceModules {
  bool present = false;        // the folder has modules.json
  std::string transformer_dir;  // the encoder's folder (config.json, weights)
  SentencePooling pooling;
  int64_t max_seq_length = 0;  // sentence_bert_config.json's; 0: none
};

// modules.json of `dir` (absent: present is false). Modules other than Transformer,
// Pooling and Normalize, and pooling modes other than cls, mean, max and lasttoken, are
// refused by name.
Result<SentenceModules> read_sentence_modules(const std::string& dir);

}  // namespace convert
}  // namespace focal
