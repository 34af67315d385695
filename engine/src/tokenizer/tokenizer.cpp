#include "focal/tokenizer.h"

#include <cstring>

#include "focal_generated.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/pretokenize.h"
#include "tokenizer/wordpiece.h"

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
  Tokenizer tokenizer(t);
  if (t->kind() == fb::TokenizerKind_Unigram &&
      (t->scores() == nullptr || t->scores()->size() != t->vocab()->size())) {
    return Status::error(StatusCode::kInvalidModel, "a unigram tokenizer needs one score per piece");
  }
  for (uint32_t i = 0; i < t->vocab()->size(); ++i) {
    const size_t n = t->vocab()->Get(i)->size();
    tokenizer.max_piece_bytes_ = n > tokenizer.max_piece_bytes_ ? n : tokenizer.max_piece_bytes_;
    if (t->kind() == fb::TokenizerKind_Unigram && (i == 0 || t->scores()->Get(i) < tokenizer.min_score_)) {
      tokenizer.min_score_ = t->scores()->Get(i);
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
int32_t Tokenizer::bos_id() const { return t_->bos_id(); }
int32_t Tokenizer::eos_id() const { return t_->eos_id(); }
int32_t Tokenizer::unk_id() const { return t_->unk_id(); }
const char* Tokenizer::kind() const {
  switch (t_->kind()) {
    case fb::TokenizerKind_ByteLevelBpe: return "byte-level-bpe";
    case fb::TokenizerKind_WordPiece: return "wordpiece";
    case fb::TokenizerKind_Unigram: return "unigram";
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

// The token `left` and `right` merge into, with its rank; -1 when they do not merge.
int32_t Tokenizer::merge(int32_t left, int32_t right, int32_t* rank) const {
  const auto& rules = *t_->merge_rules();
  size_t lo = 0, hi = rules.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const fb::MergeRule& r = *rules.Get(static_cast<uint32_t>(mid));
    if (r.left() == left && r.right() == right) {
      *rank = r.rank();
      return r.merged();
    }
    if (r.left() < left || (r.left() == left && r.right() < right)) lo = mid + 1; else hi = mid;
  }
  return -1;
}

// Each pre-token starts as its bytes' tokens; the adjacent pair with the lowest rank
// merges until none can (GPT-2's bpe()). Quadratic in a pre-token's length, which is a
// word: fine.
Result<size_t> Tokenizer::encode_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity, int32_t* work,
                                     size_t work_count) const {
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    const size_t length = tokenizer::next_pretoken(text, bytes, i);
    if (length > work_count) return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    size_t n = length;
    for (size_t k = 0; k < length; ++k) work[k] = byte_token_[static_cast<uint8_t>(text[i + k])];
    while (n > 1) {
      int32_t best_rank = INT32_MAX, best_token = -1;
      size_t best_at = 0;
      for (size_t k = 0; k + 1 < n; ++k) {
        int32_t rank = 0;
        const int32_t merged = merge(work[k], work[k + 1], &rank);
        if (merged >= 0 && rank < best_rank) {
          best_rank = rank;
          best_token = merged;
          best_at = k;
        }
      }
      if (best_token < 0) break;
      work[best_at] = best_token;
      std::memmove(work + best_at + 1, work + best_at + 2, (n - best_at - 2) * sizeof(int32_t));
      --n;
    }
    if (count + n > capacity) {
      return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    }
    std::memcpy(ids + count, work, n * sizeof(int32_t));
    count += n;
    i += length;
  }
  return count;
}

Result<size_t> Tokenizer::encode_characters(const char* text, size_t bytes, int32_t* ids, size_t capacity) const {
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = tokenizer::utf8_decode(text, bytes, i, &cp);
    char lowered = text[i];
    if (t_->lowercase() && n == 1 && lowered >= 'A' && lowered <= 'Z') lowered = char(lowered - 'A' + 'a');
    int32_t id = n == 1 ? find(&lowered, 1) : find(text + i, n);
    if (id < 0) id = t_->unk_id();
    if (id < 0) {
      return Status::error(StatusCode::kInvalidArgument, "character U+%04X at byte %zu is not in the vocabulary",
                           static_cast<unsigned>(cp), i);
    }
    if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[count++] = id;
    i += n;
  }
  return count;
}

// BERT: words from bert_words(), each split greedily into the longest vocabulary entries
// from the left ("##" marks a continuation); a word with an unmatched rest, or over 100
// characters, is one unk.
Result<size_t> Tokenizer::encode_wordpiece(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                           char* work) const {
  char* words = work;
  const size_t length = tokenizer::bert_words(text, bytes, t_->lowercase(), words);
  char* piece = words + length;  // "##" + a candidate, at most max_piece_bytes_ long
  size_t count = 0;
  const auto emit = [&](int32_t id) -> bool {
    if (count == capacity) return false;
    ids[count++] = id;
    return true;
  };
  for (size_t w = 0; w < length;) {
    const char* word = words + w;
    const size_t n = std::strlen(word);
    w += n + 1;
    size_t chars = 0;
    for (size_t k = 0; k < n; ++k) chars += (static_cast<uint8_t>(word[k]) & 0xC0) != 0x80 ? 1 : 0;
    const size_t before = count;
    bool unknown = chars > 100;
    for (size_t start = 0; start < n && !unknown;) {
      int32_t found = -1;
      size_t end = n;
      for (; end > start; --end) {
        if (end < n && (static_cast<uint8_t>(word[end]) & 0xC0) == 0x80) continue;  // inside a character
        const size_t prefix = start > 0 ? 2 : 0;
        if (prefix + end - start > max_piece_bytes_) continue;
        std::memcpy(piece, "##", prefix);
        std::memcpy(piece + prefix, word + start, end - start);
        found = find(piece, prefix + end - start);
        if (found >= 0) break;
      }
      if (found < 0) {
        unknown = true;
        break;
      }
      if (!emit(found)) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
      start = end;
    }
    if (unknown) {
      count = before;
      if (t_->unk_id() < 0) return Status::error(StatusCode::kInvalidArgument, "a word has no pieces and there is no unk");
      if (!emit(t_->unk_id())) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    }
  }
  return count;
}

// SentencePiece's unigram model: the text with a leading space and every space as U+2581,
// then the segmentation into vocabulary pieces with the highest total score (Viterbi over
// byte positions; a character no piece starts with is an unknown scoring 10 below the
// lowest piece), consecutive unknowns merged into one, as SentencePiece does.
Result<size_t> Tokenizer::encode_unigram(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                         uint8_t* work) const {
  static const char kSpace[] = "\xE2\x96\x81";  // U+2581, SentencePiece's word boundary
  char* normal = reinterpret_cast<char*>(work);
  size_t n = 0;
  std::memcpy(normal, kSpace, 3);
  n = 3;
  for (size_t i = 0; i < bytes; ++i) {
    if (text[i] == ' ') {
      std::memcpy(normal + n, kSpace, 3);
      n += 3;
    } else {
      normal[n++] = text[i];
    }
  }
  // Lattice over byte positions 0..n: the best score ending there, and its last piece.
  uint8_t* lattice = work + ((n + 8) / 8 * 8);
  double* best = reinterpret_cast<double*>(lattice);
  int32_t* from = reinterpret_cast<int32_t*>(best + n + 1);
  int32_t* piece = from + n + 1;
  for (size_t i = 0; i <= n; ++i) {
    best[i] = i == 0 ? 0.0 : -1e300;
    from[i] = -1;
    piece[i] = -1;
  }
  const double unk_score = double(min_score_) - 10.0;
  for (size_t start = 0; start < n; ++start) {
    if (start > 0 && from[start] < 0) continue;  // not reachable: inside a character
    uint32_t cp = 0;
    const size_t char_bytes = tokenizer::utf8_decode(normal, n, start, &cp);
    bool single = false;
    for (size_t end = start + 1; end <= n && end - start <= max_piece_bytes_; ++end) {
      const int32_t id = find(normal + start, end - start);
      if (id < 0 || id == t_->unk_id()) continue;
      single = single || end - start == char_bytes;
      const double score = best[start] + double(t_->scores()->Get(static_cast<uint32_t>(id)));
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = id;
      }
    }
    if (!single) {
      const size_t end = start + char_bytes;
      const double score = best[start] + unk_score;
      if (score > best[end]) {
        best[end] = score;
        from[end] = static_cast<int32_t>(start);
        piece[end] = -2;  // unknown
      }
    }
  }
  // Walk back from the end, writing pieces in reverse, then reverse them in place.
  size_t count = 0;
  for (size_t at = n; at > 0; at = static_cast<size_t>(from[at])) {
    const int32_t id = piece[at] == -2 ? t_->unk_id() : piece[at];
    if (id < 0) return Status::error(StatusCode::kInvalidArgument, "unknown characters and no unk piece");
    const bool unknown = piece[at] == -2;
    if (unknown && count > 0 && ids[count - 1] == id && piece[at] == -2) continue;  // merged unknowns
    if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[count++] = id;
  }
  for (size_t i = 0; i < count / 2; ++i) {
    const int32_t swap = ids[i];
    ids[i] = ids[count - 1 - i];
    ids[count - 1 - i] = swap;
  }
  return count;
}

Result<size_t> Tokenizer::encode(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* scratch,
                                 size_t scratch_bytes) const {
  if ((text == nullptr && bytes > 0) || (ids == nullptr && capacity > 0)) {
    return Status::error(StatusCode::kInvalidArgument, "encode: null text or ids");
  }
  if (t_->kind() == fb::TokenizerKind_Characters) return encode_characters(text, bytes, ids, capacity);
  if (scratch == nullptr || reinterpret_cast<uintptr_t>(scratch) % 8 != 0 ||
      scratch_bytes < encode_scratch_bytes(bytes)) {
    return Status::error(StatusCode::kInvalidArgument, "encode: scratch must be 8-byte aligned and hold %zu bytes",
                         encode_scratch_bytes(bytes));
  }
  if (t_->kind() == fb::TokenizerKind_WordPiece) {
    return encode_wordpiece(text, bytes, ids, capacity, static_cast<char*>(scratch));
  }
  if (t_->kind() == fb::TokenizerKind_Unigram) {
    return encode_unigram(text, bytes, ids, capacity, static_cast<uint8_t*>(scratch));
  }
  return encode_bpe(text, bytes, ids, capacity, static_cast<int32_t*>(scratch), scratch_bytes / sizeof(int32_t));
}

Result<size_t> Tokenizer::decode_token(int32_t id, char* out, size_t capacity) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) {
    return Status::error(StatusCode::kOutOfRange, "token id %d outside the vocabulary of %zu", static_cast<int>(id),
                         vocab_size());
  }
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  if (t_->kind() == fb::TokenizerKind_WordPiece || t_->kind() == fb::TokenizerKind_Unigram) {
    // WordPiece: "##x" continues a word, any other piece starts one after a space;
    // unigram: U+2581 stands for a space.
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

}  // namespace focal
