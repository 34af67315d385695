#include "tokenizers/vocab_mapping.h"

#include <algorithm>
#include <map>

#include "assign_or_return.h"

namespace focal {
namespace convert {
namespace {

bool is_control_piece(const std::string& piece) {
  return piece == "<s>" || piece == "</s>" || piece == "<unk>" || piece == "<pad>";
}

// vocab.json's entries by id; an error for a non-integer, out-of-range or repeated id.
Result<std::vector<std::string>> pieces_by_id(const nlohmann::json& vocab, const std::string& vocab_name) {
  if (!vocab.is_object() || vocab.empty()) {
    return Status::error(StatusCode::kInvalidArgument, "'%s' is not a non-empty {piece: id} object",
                         vocab_name.c_str());
  }
  std::vector<std::string> by_id(vocab.size());
  std::vector<bool> seen(vocab.size(), false);
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const int64_t id = it.value().is_number_integer() ? it.value().get<int64_t>() : -1;
    if (id < 0 || id >= static_cast<int64_t>(by_id.size()) || seen[size_t(id)]) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': piece '%s' has a bad or repeated id %s",
                           vocab_name.c_str(), it.key().c_str(), it.value().dump().c_str());
    }
    seen[size_t(id)] = true;
    by_id[size_t(id)] = it.key();
  }
  return by_id;
}

// The new id of the piece that had `old_id` in `pieces`, or -1.
int32_t renumbered(const TokenizerSpec& pieces, int32_t old_id, const std::map<std::string, int32_t>& ids) {
  if (old_id < 0 || static_cast<size_t>(old_id) >= pieces.vocab.size()) return -1;
  const auto found = ids.find(pieces.vocab[size_t(old_id)]);
  return found == ids.end() ? -1 : found->second;
}

}  // namespace

Result<TokenizerSpec> map_pieces_to_vocab(const TokenizerSpec& pieces, const nlohmann::json& vocab,
                                          const std::string& vocab_name, OtherPieces others) {
  if (pieces.kind != fb::TokenizerKind_Unigram || pieces.scores.size() != pieces.vocab.size() ||
      pieces.vocab.empty()) {
    return Status::error(StatusCode::kInvalidArgument,
                         "%s maps a SentencePiece unigram vocabulary (pieces with scores) onto its ids",
                         vocab_name.c_str());
  }
  FOCAL_ASSIGN_OR_RETURN(const std::vector<std::string> by_id, pieces_by_id(vocab, vocab_name));
  std::map<std::string, int32_t> ids;
  for (size_t id = 0; id < by_id.size(); ++id) ids[by_id[id]] = static_cast<int32_t>(id);
  const float lowest = *std::min_element(pieces.scores.begin(), pieces.scores.end());

  TokenizerSpec mapped;
  mapped.kind = fb::TokenizerKind_Unigram;
  mapped.lowercase = pieces.lowercase;
  // The SentencePiece model's normalizer: its whitespace flags and character map (a .model's).
  mapped.add_dummy_prefix = pieces.add_dummy_prefix;
  mapped.remove_extra_whitespaces = pieces.remove_extra_whitespaces;
  mapped.charsmap = pieces.charsmap;
  mapped.vocab = by_id;
  mapped.scores.assign(by_id.size(), lowest);
  std::vector<bool> in_model(by_id.size(), false);
  for (size_t i = 0; i < pieces.vocab.size(); ++i) {
    const std::string& piece = pieces.vocab[i];
    const auto found = ids.find(piece);
    if (found == ids.end()) {
      if (is_control_piece(piece)) continue;
      return Status::error(StatusCode::kInvalidArgument,
                           "piece '%s' (id %zu of the SentencePiece vocabulary) is not in '%s': the text could "
                           "segment into a piece the model has no id for",
                           piece.c_str(), i, vocab_name.c_str());
    }
    mapped.scores[size_t(found->second)] = pieces.scores[i];
    in_model[size_t(found->second)] = true;
  }
  if (others == OtherPieces::kUnreachable) {
    for (size_t id = 0; id < by_id.size(); ++id) {
      if (!in_model[id]) mapped.vocab[id] = "\xFF" + by_id[id];
    }
  }
  mapped.unk_id = renumbered(pieces, pieces.unk_id, ids);
  mapped.bos_id = renumbered(pieces, pieces.bos_id, ids);
  mapped.eos_id = renumbered(pieces, pieces.eos_id, ids);
  mapped.pad_id = renumbered(pieces, pieces.pad_id, ids);
  if (mapped.pad_id < 0 && ids.count("<pad>") != 0) mapped.pad_id = ids.at("<pad>");
  return mapped;
}

}  // namespace convert
}  // namespace focal
