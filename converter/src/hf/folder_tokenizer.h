// The tokenizer a Hugging Face folder ships, as a `--tokenizer` spec
// (tokenizers/tokenizer_files.h). tokenizer.json is the hub's own format; until focal
// reads it, the older side files beside it are taken: vocab.txt (WordPiece) or
// vocab.json + merges.txt (byte-level BPE). This is the one place a tokenizer.json
// reader plugs in.
#pragma once

#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {
namespace convert {

// The spec for `dir`'s tokenizer files; empty, with a warning saying why, when there is
// none focal can read (the model converts without a tokenizer).
Result<std::string> find_folder_tokenizer(const std::string& dir, std::vector<std::string>* warnings);

}  // namespace convert
}  // namespace focal
