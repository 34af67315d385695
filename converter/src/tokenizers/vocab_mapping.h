// A SentencePiece vocabulary renumbered by a joint vocab.json ({piece: id}), as Marian /
// opus-mt models ship them: source.spm and target.spm segment the text, and every piece
// is then looked up in the one vocab.json the model's embeddings are indexed by
// (transformers' MarianTokenizer). The piece list comes from any reader of SentencePiece
// vocabularies (the `unigram:` text dump, or a .model file).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "focal/status.h"
#include "writer/tokenizer_table.h"

namespace focal {
namespace convert {

// What becomes of vocab.json's entries that are not pieces of this SentencePiece model
// (the other language's pieces in a joint vocabulary).
enum class OtherPieces {
  kUnreachable,  // the source side: stored so that text never matches them (a leading
                 // 0xFF byte, which no UTF-8 text holds), as SentencePiece never emits them
  kDecodable,    // the target side: stored as they are, so any id the model emits decodes
};

// `pieces` (a unigram TokenizerSpec, ids in the SentencePiece model's order) with the ids
// of `vocab` ({piece: id}, ids 0..n-1 each once; `vocab_name` names it in errors): entry
// vocab[piece] holds the piece and its score, the others the lowest score. Every piece
// must be in vocab (an error names the first that is not), except SentencePiece's
// control pieces <s>, </s>, <unk> and <pad>. unk, bos, eos and pad follow their pieces
// ("<pad>" of vocab.json when the SentencePiece model has none).
Result<TokenizerSpec> map_pieces_to_vocab(const TokenizerSpec& pieces, const nlohmann::json& vocab,
                                          const std::string& vocab_name, OtherPieces others);

}  // namespace convert
}  // namespace focal
