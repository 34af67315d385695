// The Tokenizer's common front: loading and checking the stored tokenizer, the vocabulary
// lookups every kind shares, unknown characters, the choice of the kind's encoder and
// decoding. Each kind's encoder has a file of its own: encode_byte_level_bpe.cpp,
// encode_sentencepiece_bpe.cpp (both merging through bpe_merge.cpp), encode_unigram.cpp,
// encode_wordpiece.cpp and encode_characters.cpp; added tokens and templates are
// encode_specials.cpp.
#include "focal/tokenizer.h"

#include <cstring>

#include "focal_generated.h"
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/charsmap.h"
#include "apps/tokenizer/sentencepiece_text.h"

namespace focal {
namespace {

int compare(const flatbuffers::String& a, const char* b, size_t b_bytes) {
  const size_t n = a.size() < b_bytes ? a.size() : b_bytes;
  const int c = std::memcmp(a.data(), b, n);
  if (c != 0) return c;
  return a.size() < b_bytes ? -1 : (a.size() > b_bytes ? 1 : 0);
}

}  // namespace

Result<Tokenizer> Tokenizer::from_model(const Model& model, bool target) {
  const fb::Tokenizer* t = target ? model.schema().target_tokenizer() : model.schema().tokenizer();
  if (t == nullptr || t->vocab() == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "the model has no %stokenizer", target ? "target " : "");
  }
  if (t->kind() == fb::TokenizerKind_None || t->kind() > fb::TokenizerKind_MAX) {
    return Status::error(StatusCode::kUnsupported, "tokenizer kind %s is not supported by this engine",
                         fb::EnumNameTokenizerKind(t->kind()));
  }
  if (t->split_pattern() > fb::SplitPattern_MAX || t->normalization() > fb::TextNormalization_MAX) {
    return Status::error(StatusCode::kUnsupported, "tokenizer pre-tokenizer %u or normalization %u is not known to this engine",
                         static_cast<unsigned>(t->split_pattern()), static_cast<unsigned>(t->normalization()));
  }
  if (t->kind() != fb::TokenizerKind_ByteLevelBpe &&
      (t->split_pattern() != fb::SplitPattern_Gpt2 || t->ignore_merges() || t->normalization() != fb::TextNormalization_None)) {
    return Status::error(StatusCode::kInvalidModel, "a split pattern, ignore_merges or a normalization is for byte-level BPE only");
  }
  Tokenizer tokenizer(t);
  if (t->charsmap() != nullptr && t->charsmap()->size() > 0) {
    if (t->kind() != fb::TokenizerKind_Unigram) {
      return Status::error(StatusCode::kInvalidModel, "a SentencePiece character map is for unigram tokenizers only");
    }
    FOCAL_RETURN_IF_ERROR(tokenizer::check_charsmap(t->charsmap()->data(), t->charsmap()->size()).status());
    tokenizer.charsmap_ = t->charsmap()->data();
    tokenizer.charsmap_bytes_ = t->charsmap()->size();
  }
  if (t->kind() == fb::TokenizerKind_Unigram &&
      (t->scores() == nullptr || t->scores()->size() != t->vocab()->size())) {
    return Status::error(StatusCode::kInvalidModel, "a unigram tokenizer needs one score per piece");
  }
  for (uint32_t i = 0; i < t->vocab()->size(); ++i) {
    if (t->kind() == fb::TokenizerKind_Unigram && (i == 0 || t->scores()->Get(i) < tokenizer.min_score_)) {
      tokenizer.min_score_ = t->scores()->Get(i);
    }
  }
  if (t->byte_fallback()) {
    // A byte without its <0xXX> piece stays -1 (Gemma 2's vocabulary has no <0x09>, its tab
    // is the piece "\t"): a character needing it becomes unk, as tokenizers' BPE and Unigram
    // do when a byte piece is missing.
    for (uint32_t b = 0; b < 256; ++b) {
      char piece[6];
      tokenizer::byte_piece_text(static_cast<uint8_t>(b), piece);
      tokenizer.byte_token_[b] = tokenizer.find(piece, sizeof(piece));
    }
  }
  if (t->kind() == fb::TokenizerKind_ByteLevelBpe) {
    for (uint32_t b = 0; b < 256; ++b) {
      char utf8[2];
      const size_t n = tokenizer::utf8_encode(tokenizer::byte_to_code_point(b), utf8);
      tokenizer.byte_token_[b] = tokenizer.find(utf8, n);
      if (tokenizer.byte_token_[b] < 0) {
        return Status::error(StatusCode::kInvalidModel, "byte-level BPE vocabulary lacks the token of byte %u",
                             static_cast<unsigned>(b));
      }
    }
  }
  return tokenizer;
}

size_t Tokenizer::vocab_size() const { return t_->vocab()->size(); }

const char* Tokenizer::token_text(int32_t id, size_t* bytes) const {
  *bytes = 0;
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) return nullptr;
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  *bytes = s.size();
  return s.c_str();
}
int32_t Tokenizer::bos_id() const { return t_->bos_id(); }
int32_t Tokenizer::eos_id() const { return t_->eos_id(); }
int32_t Tokenizer::unk_id() const { return t_->unk_id(); }
const char* Tokenizer::kind() const {
  switch (t_->kind()) {
    case fb::TokenizerKind_ByteLevelBpe: return "byte-level-bpe";
    case fb::TokenizerKind_WordPiece: return "wordpiece";
    case fb::TokenizerKind_Unigram: return "unigram";
    case fb::TokenizerKind_SentencePieceBpe: return "sentencepiece-bpe";
    default: return "characters";
  }
}

// Binary search over sorted_vocab (verified at load to be a permutation in string order).
int32_t Tokenizer::find(const char* text, size_t bytes) const {
  const auto& order = *t_->sorted_vocab();
  size_t lo = 0, hi = order.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int32_t id = order.Get(static_cast<uint32_t>(mid));
    const int c = compare(*t_->vocab()->Get(static_cast<uint32_t>(id)), text, bytes);
    if (c == 0) return id;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

// With byte fallback, whether every byte of `text` has its <0xXX> piece.
bool Tokenizer::has_byte_pieces(const char* text, size_t bytes) const {
  if (!t_->byte_fallback()) return false;
  for (size_t i = 0; i < bytes; ++i) {
    if (byte_token_[static_cast<uint8_t>(text[i])] < 0) return false;
  }
  return true;
}

// An unknown character: its <0xXX> byte pieces with byte fallback when the vocabulary has
// them all, else unk (a run of unknowns is one unk, as SentencePiece and tokenizers'
// fuse_unk make it).
Status Tokenizer::emit_unknown(const char* text, size_t bytes, int32_t* ids, size_t* count, size_t capacity) const {
  if (has_byte_pieces(text, bytes)) {
    for (size_t i = 0; i < bytes; ++i) {
      if (*count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
      ids[(*count)++] = byte_token_[static_cast<uint8_t>(text[i])];
    }
    return Status();
  }
  if (t_->unk_id() < 0) return Status::error(StatusCode::kInvalidArgument, "unknown characters and no unk piece");
  if (*count > 0 && ids[*count - 1] == t_->unk_id()) return Status();
  if (*count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
  ids[(*count)++] = t_->unk_id();
  return Status();
}

// One text (no added tokens in it) through the model; encode() checked the arguments.
Result<size_t> Tokenizer::encode_model(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                       void* scratch) const {
  switch (t_->kind()) {
    case fb::TokenizerKind_Characters: return encode_characters(text, bytes, ids, capacity);
    case fb::TokenizerKind_WordPiece: return encode_wordpiece(text, bytes, ids, capacity, static_cast<char*>(scratch));
    case fb::TokenizerKind_Unigram: return encode_unigram(text, bytes, ids, capacity, static_cast<uint8_t*>(scratch));
    case fb::TokenizerKind_SentencePieceBpe:
      return encode_sentencepiece_bpe(text, bytes, ids, capacity, static_cast<uint8_t*>(scratch));
    case fb::TokenizerKind_ByteLevelBpe:
    case fb::TokenizerKind_None: break;
  }
  return encode_bpe(text, bytes, ids, capacity, scratch, encode_scratch_bytes(bytes));
}

Result<size_t> Tokenizer::decode_token(int32_t id, char* out, size_t capacity) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) {
    return Status::error(StatusCode::kOutOfRange, "token id %d outside the vocabulary of %zu", static_cast<int>(id),
                         vocab_size());
  }
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  const bool sentencepiece = t_->kind() == fb::TokenizerKind_Unigram || t_->kind() == fb::TokenizerKind_SentencePieceBpe;
  const int byte = t_->byte_fallback() ? tokenizer::byte_piece_value(s.c_str(), s.size()) : -1;
  if (sentencepiece && byte >= 0) {
    if (capacity == 0) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    out[0] = static_cast<char>(byte);
    return size_t{1};
  }
  if (t_->kind() == fb::TokenizerKind_WordPiece || sentencepiece) {
    // WordPiece: "##x" continues a word, any other piece starts one after a space;
    // SentencePiece: U+2581 stands for a space, <0xXX> for a byte (byte fallback).
    const bool continuation = t_->kind() == fb::TokenizerKind_WordPiece && s.size() >= 2 && s.c_str()[0] == '#' &&
                              s.c_str()[1] == '#';
    size_t written = 0;
    if (t_->kind() == fb::TokenizerKind_WordPiece && !continuation) {
      if (capacity == 0) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
      out[written++] = ' ';
    }
    for (size_t i = continuation ? 2 : 0; i < s.size(); ++i) {
      const bool space = i + 3 <= s.size() && std::memcmp(s.c_str() + i, "\xE2\x96\x81", 3) == 0;
      if (written == capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
      out[written++] = space ? ' ' : s.c_str()[i];
      if (space) i += 2;
    }
    return written;
  }
  if (t_->kind() == fb::TokenizerKind_Characters) {
    if (s.size() > capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    std::memcpy(out, s.data(), s.size());
    return static_cast<size_t>(s.size());
  }
  size_t written = 0;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    i += tokenizer::utf8_decode(s.data(), s.size(), i, &cp);
    const int b = tokenizer::code_point_to_byte(cp);
    if (b < 0) continue;  // not a byte character (a special token's text): no bytes
    if (written == capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    out[written++] = static_cast<char>(b);
  }
  return written;
}

size_t Tokenizer::decoded_bytes_bound(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) return 0;
  return t_->vocab()->Get(static_cast<uint32_t>(id))->size() + 1;  // + WordPiece's space
}

}  // namespace focal
