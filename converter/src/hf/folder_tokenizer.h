// The tokenizer a Hugging Face folder ships, as a `--tokenizer` spec
// (tokenizers/tokenizer_files.h): tokenizer.json, the hub's own format, when focal reads
// every part of it; else a SentencePiece model (spiece.model: T5; sentencepiece.bpe.model:
// XLM-R; tokenizer.model: Llama 2); else the older side files vocab.txt (WordPiece) or
// vocab.json + merges.txt (byte-level BPE). A file passed over is named in a warning
// with the reason. Marian's source.spm, target.spm and vocab.json come first when present.
#pragma once

#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {
namespace convert {

// The spec for `dir`'s tokenizer files; empty, with a warning saying why, when there is
// none focal can read (the model converts without a tokenizer).
Result<std::string> find_folder_tokenizer(const std::string& dir, std::vector<std::string>* warnings);

// Marian / opus-mt's tokenizers (transformers' MarianTokenizer): source.spm segments the
// source and target.spm the output, each piece numbered by the joint vocab.json, as
// `sentencepiece:SPM:VOCAB.json` specs; both empty when the folder lacks any of the three
// files (or its path holds ':').
struct FolderTokenizers {
  std::string source, target;
};
FolderTokenizers find_marian_tokenizers(const std::string& dir);

}  // namespace convert
}  // namespace focal
