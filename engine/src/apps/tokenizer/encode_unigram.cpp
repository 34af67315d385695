// SentencePiece unigram's encoder (T5, Marian): the normalized text segmented
// into the pieces with the highest total score.
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/charsmap.h"
#include "apps/tokenizer/sentencepiece_text.h"
#include "apps/tokenizer/sorted_vocab.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {

using tokenizer::Prefix;
using tokenizer::SortedVocab;

// SentencePiece's unigram model: the normalized text (sentencepiece_text.h, or charsmap.h
// with a character map), then the segmentation into vocabulary pieces with the highest
// total score (Viterbi over
// byte positions; a character no piece starts with is an unknown scoring 10 below the
// lowest piece), consecutive unknowns merged into one, as SentencePiece does (with byte
// fallback, each unknown character is its bytes' pieces instead). The pieces
// starting at a position come from one walk forward through the sorted vocabulary, which
// ends where no entry continues: linear in the text, times the longest piece at most
// (kMaxTokenBytes, checked at load).
Result<size_t> Tokenizer::encode_unigram(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                         uint8_t* work) const {
  // Scratch: the normalized text, n <= 16 bytes + 3 per text byte (3 + 3 without a
  // character map), rounded to 8; then the lattice, 16 (n + 1) bytes: 272 per byte and 75.
  static_assert(17 * tokenizer::kMaxCharsmapGrowth <= kScratchBytesPerTextByte, "the unigram lattice fits the scratch");
  char* normal = reinterpret_cast<char*>(work);
  size_t n = 0;
  if (charsmap_ != nullptr) {
    const tokenizer::SentencePieceFlags flags{t_->add_dummy_prefix(), t_->remove_extra_whitespaces()};
    Result<size_t> normalized = tokenizer::normalize_with_charsmap(tokenizer::charsmap_parts(charsmap_, charsmap_bytes_),
                                                                   text, bytes, flags, normal);
    if (!normalized.ok()) return normalized.status();
    n = normalized.value();
  } else {
    n = tokenizer::normalize_sentencepiece(text, bytes, t_->add_dummy_prefix(), t_->remove_extra_whitespaces(), normal);
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
  const SortedVocab vocab(*t_);
  for (size_t start = 0; start < n; ++start) {
    if (start > 0 && from[start] < 0) continue;  // not reachable: inside a character
    uint32_t cp = 0;
    const size_t char_bytes = tokenizer::utf8_decode(normal, n, start, &cp);
    bool single = false;
    Prefix p = vocab.all();
    for (size_t end = start + 1; end <= n && vocab.extend(&p, static_cast<uint8_t>(normal[end - 1])); ++end) {
      const int32_t id = vocab.exact(p);
      if (id < 0 || is_control_piece(id)) continue;
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
    const size_t from_at = static_cast<size_t>(from[at]);
    if (piece[at] == -2 && has_byte_pieces(normal + from_at, at - from_at)) {  // in reverse, like the pieces
      for (size_t b = at; b > static_cast<size_t>(from[at]); --b) {
        if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
        ids[count++] = byte_token_[static_cast<uint8_t>(normal[b - 1])];
      }
      continue;
    }
    const int32_t id = piece[at] == -2 ? t_->unk_id() : piece[at];
    if (id < 0) return Status::error(StatusCode::kInvalidArgument, "unknown characters and no unk piece");
    const bool unknown = piece[at] == -2;
    if (unknown && count > 0 && ids[count - 1] == id) continue;  // merged unknowns
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

// SentencePiece's control pieces (<s>, </s>, <pad>) and <unk> are never matched in the
// text by the model ("<s>" typed is "<", "s", ">"); added tokens match them before it.
bool Tokenizer::is_control_piece(int32_t id) const {
  return id == t_->unk_id() || id == t_->bos_id() || id == t_->eos_id() || id == t_->pad_id();
}

}  // namespace focal
