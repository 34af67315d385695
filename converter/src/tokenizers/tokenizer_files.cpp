#include "tokenizers/tokenizer_files.h"

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <vector>

#include "assign_or_return.h"
#include "json/json_file.h"
#include "readers/checkpoint.h"
#include "tokenizers/hf_tokenizer_json.h"
#include "tokenizers/sentencepiece_model.h"
#include "tokenizers/vocab_mapping.h"

namespace focal {
namespace convert {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(text);
  while (std::getline(in, part, separator)) parts.push_back(part);
  return parts;
}

}  // namespace

void find_special_tokens(TokenizerSpec* spec) {
  for (size_t id = 0; id < spec->vocab.size(); ++id) {
    const std::string& t = spec->vocab[id];
    const int32_t i = static_cast<int32_t>(id);
    if (t == "<|endoftext|>") spec->bos_id = spec->eos_id = i;
    if (t == "<pad>") spec->pad_id = i;
    if (t == "<bos>" || t == "<s>") spec->bos_id = i;
    if (t == "<eos>" || t == "</s>") spec->eos_id = i;
    if (t == "<unk>" && spec->unk_id < 0) spec->unk_id = i;
    if (t == "[UNK]" && spec->unk_id < 0) spec->unk_id = i;
    if (t == "[PAD]") spec->pad_id = i;
    if (t == "[CLS]") spec->bos_id = i;
    if (t == "[SEP]") spec->eos_id = i;
  }
}

namespace {

Result<TokenizerSpec> read_bpe(const std::string& vocab_path, const std::string& merges_path) {
  Result<nlohmann::json> vocab = read_json_file(vocab_path, "tokenizer vocabulary");
  if (!vocab.ok()) return vocab.status();
  if (!vocab->is_object()) return Status::error(StatusCode::kInvalidArgument, "'%s' is not {token: id}", vocab_path.c_str());
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_ByteLevelBpe;
  spec.vocab.resize(vocab->size());
  for (auto it = vocab->begin(); it != vocab->end(); ++it) {
    const int64_t id = it.value().is_number_integer() ? it.value().get<int64_t>() : -1;
    if (id < 0 || id >= static_cast<int64_t>(spec.vocab.size()) || !spec.vocab[size_t(id)].empty()) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': token '%s' has a bad or repeated id",
                           vocab_path.c_str(), it.key().c_str());
    }
    spec.vocab[size_t(id)] = it.key();
  }
  FOCAL_RETURN_IF_ERROR(check_regular_file(merges_path));
  std::ifstream merges(merges_path);
  if (!merges) return Status::error(StatusCode::kIoError, "cannot open '%s'", merges_path.c_str());
  std::string line;
  size_t number = 0;
  while (std::getline(merges, line)) {
    ++number;
    if (line.empty() || line.rfind("#version", 0) == 0) continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space == 0 || space + 1 == line.size()) {
      return Status::error(StatusCode::kInvalidArgument, "'%s' line %zu is not 'a b'", merges_path.c_str(), number);
    }
    spec.merges.emplace_back(line.substr(0, space), line.substr(space + 1));
  }
  find_special_tokens(&spec);
  // transformers' GPT2Tokenizer makes its unk/bos/eos token, <|endoftext|>, a special
  // added token: typed in the text it is that one id, not its characters' pieces.
  if (spec.eos_id >= 0 && spec.vocab[size_t(spec.eos_id)] == "<|endoftext|>") {
    spec.added_tokens.push_back({spec.eos_id, false, false, true});
  }
  return spec;
}

Result<TokenizerSpec> read_characters(const std::string& path, const std::string& key) {
  Result<nlohmann::json> file = read_json_file(path, "tokenizer file");
  if (!file.ok()) return file.status();
  const nlohmann::json& list = key.empty() ? file.value() : file.value().value(key, nlohmann::json());
  if (!list.is_array()) {
    return Status::error(StatusCode::kInvalidArgument, "'%s'%s%s is not a list of tokens", path.c_str(),
                         key.empty() ? "" : " key ", key.c_str());
  }
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  for (const auto& token : list) {
    if (!token.is_string()) {
      return Status::error(StatusCode::kInvalidArgument, "'%s': token %zu is not a string", path.c_str(),
                           spec.vocab.size());
    }
    spec.vocab.push_back(token.get<std::string>());
  }
  find_special_tokens(&spec);
  return spec;
}

// transformers' BertTokenizerFast, which AutoTokenizer builds from a vocab.txt (tokenizers'
// BertNormalizer and BertPreTokenizer, as for a tokenizer.json; the slow Python
// BertTokenizer differs at the edges, e.g. it keeps U+2028 inside words): its special
// tokens ([UNK], [SEP], [PAD], [CLS], [MASK]) are special added tokens, matched in the text
// before normalization ("[CLS]" typed is that one id), and it puts [CLS] A [SEP] (B [SEP])
// around the text for the model.
void add_bert_specials(TokenizerSpec* spec) {
  for (size_t id = 0; id < spec->vocab.size(); ++id) {
    const std::string& t = spec->vocab[id];
    if (t == "[UNK]" || t == "[SEP]" || t == "[PAD]" || t == "[CLS]" || t == "[MASK]") {
      spec->added_tokens.push_back({static_cast<int32_t>(id), false, false, true});
    }
  }
  const int32_t cls = spec->bos_id, sep = spec->eos_id;
  if (cls >= 0 && sep >= 0 && spec->vocab[size_t(cls)] == "[CLS]" && spec->vocab[size_t(sep)] == "[SEP]") {
    spec->template_single = {cls, -1, sep};
    spec->template_pair = {cls, -1, sep, -2, sep};
  }
}

// BERT's vocab.txt: one token per line, the id is the line number.
Result<TokenizerSpec> read_wordpiece(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open '%s'", path.c_str());
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_WordPiece;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    spec.vocab.push_back(line);
  }
  find_special_tokens(&spec);
  add_bert_specials(&spec);
  return spec;
}

// SentencePiece's .vocab: "piece<TAB>score" per line, the id is the line number.
Result<TokenizerSpec> read_unigram(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open '%s'", path.c_str());
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Unigram;
  std::string line;
  size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const size_t tab = line.rfind('\t');
    if (tab == std::string::npos) {
      return Status::error(StatusCode::kInvalidArgument, "'%s' line %zu is not 'piece<TAB>score'", path.c_str(), number);
    }
    char* end = nullptr;
    const float score = std::strtof(line.c_str() + tab + 1, &end);
    if (end == line.c_str() + tab + 1) {
      return Status::error(StatusCode::kInvalidArgument, "'%s' line %zu has no score", path.c_str(), number);
    }
    spec.vocab.push_back(line.substr(0, tab));
    spec.scores.push_back(score);
  }
  find_special_tokens(&spec);
  return spec;
}

// SentencePiece's pieces renumbered by a joint vocab.json (Marian's).
Result<TokenizerSpec> read_mapped_unigram(const std::string& spm_path, const std::string& vocab_path, bool target) {
  FOCAL_ASSIGN_OR_RETURN(const TokenizerSpec pieces, read_unigram(spm_path));
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json vocab, read_json_file(vocab_path, "tokenizer vocabulary"));
  return map_pieces_to_vocab(pieces, vocab, vocab_path, target ? OtherPieces::kDecodable : OtherPieces::kUnreachable);
}

// A SentencePiece .model's pieces renumbered by a joint vocab.json (Marian's source.spm,
// target.spm), with the model's normalizer (its character map) kept.
Result<TokenizerSpec> read_mapped_sentencepiece(const std::string& model_path, const std::string& vocab_path,
                                                bool target) {
  FOCAL_ASSIGN_OR_RETURN(const TokenizerSpec pieces, read_sentencepiece_model(model_path));
  if (pieces.kind != fb::TokenizerKind_Unigram) {
    return Status::error(StatusCode::kUnsupported, "'%s': a vocab.json mapping needs a unigram model", model_path.c_str());
  }
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json vocab, read_json_file(vocab_path, "tokenizer vocabulary"));
  return map_pieces_to_vocab(pieces, vocab, vocab_path, target ? OtherPieces::kDecodable : OtherPieces::kUnreachable);
}

}  // namespace

Result<TokenizerSpec> read_tokenizer(const std::string& spec) { return read_tokenizer(spec, false); }

Result<TokenizerSpec> read_tokenizer(const std::string& spec, bool target) {
  const std::vector<std::string> parts = split(spec, ':');
  if (parts.size() == 3 && parts[0] == "bpe") return read_bpe(parts[1], parts[2]);
  if ((parts.size() == 2 || parts.size() == 3) && parts[0] == "wordpiece") {
    Result<TokenizerSpec> wordpiece = read_wordpiece(parts[1]);
    if (wordpiece.ok() && parts.size() == 3) {
      if (parts[2] != "lowercase") return Status::error(StatusCode::kInvalidArgument, "unknown option '%s'", parts[2].c_str());
      wordpiece->lowercase = true;
    }
    return wordpiece;
  }
  if (parts.size() == 2 && parts[0] == "unigram") return read_unigram(parts[1]);
  if (parts.size() == 3 && parts[0] == "unigram") return read_mapped_unigram(parts[1], parts[2], target);
  if (parts.size() == 2 && parts[0] == "hf") return read_hf_tokenizer_json(parts[1]);
  if (parts.size() == 2 && parts[0] == "sentencepiece") return read_sentencepiece_model(parts[1]);
  if (parts.size() == 3 && parts[0] == "sentencepiece") return read_mapped_sentencepiece(parts[1], parts[2], target);
  const auto ends_with = [&](const char* suffix) {
    const size_t n = std::char_traits<char>::length(suffix);
    return spec.size() >= n && spec.compare(spec.size() - n, n, suffix) == 0;
  };
  if (parts.size() == 1 && ends_with("tokenizer.json")) return read_hf_tokenizer_json(spec);
  if (parts.size() == 1 && ends_with(".model")) return read_sentencepiece_model(spec);
  if ((parts.size() >= 2 && parts.size() <= 4) && parts[0] == "chars") {
    Result<TokenizerSpec> chars = read_characters(parts[1], parts.size() >= 3 ? parts[2] : "");
    if (chars.ok() && parts.size() == 4) {
      if (parts[3] != "lowercase") return Status::error(StatusCode::kInvalidArgument, "unknown option '%s'", parts[3].c_str());
      chars->lowercase = true;
    }
    return chars;
  }
  return Status::error(StatusCode::kInvalidArgument,
                       "tokenizer '%s': expected bpe:VOCAB.json:MERGES.txt, wordpiece:VOCAB.txt[:lowercase], "
                       "unigram:SPM.vocab[:VOCAB.json], chars:TOKENS.json[:KEY[:lowercase]], [hf:]PATH/tokenizer.json or "
                       "[sentencepiece:]SPM.model[:VOCAB.json]",
                       spec.c_str());
}

}  // namespace convert
}  // namespace focal
