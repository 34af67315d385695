// A SentencePiece model file (.model: the protobuf ModelProto of sentencepiece_model.proto)
// as a tokenizer: unigram and BPE models, their pieces, scores and types, the special ids
// of the trainer spec, the normalizer spec flags and its precompiled character map (NFKC
// and the like, stored for the engine). Refused by name: other model types, a character
// map with a BPE model, whitespace left unescaped or treated as a suffix.
#pragma once

#include <string>
#include <vector>

#include "focal/status.h"
#include "writer/tokenizer_table.h"

namespace focal {
namespace convert {

Result<TokenizerSpec> read_sentencepiece_model(const std::string& path);

// BPE merges from pieces and scores, as tokenizers' SentencePiece converter derives them:
// every split of a piece into two pieces, ranked by the merged piece's score (highest
// first; SentencePiece's BPE merges the pair whose piece scores best). `mergeable[i]`:
// piece i takes part (normal and user-defined pieces, not control, unknown or byte ones).
// O(total piece bytes x log pieces); an error naming `path` when the merges would hold
// over 64 times the pieces' bytes (a hostile vocabulary: a^n with every a^k in it).
Status merges_from_scores(TokenizerSpec* spec, const std::vector<bool>& mergeable, const std::string& path);

}  // namespace convert
}  // namespace focal
