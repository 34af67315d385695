// WordPiece's encoder (BERT): BERT's words (wordpiece.cpp), each split greedily into the
// longest vocabulary entries.
#include <cstring>

#include "apps/tokenizer/sorted_vocab.h"
#include "apps/tokenizer/wordpiece.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {

using tokenizer::Prefix;
using tokenizer::SortedVocab;

// BERT: words from bert_words(), each split greedily into the longest vocabulary entries
// from the left ("##" marks a continuation); a word with an unmatched rest, or over 100
// characters (BERT's max_input_chars_per_word), is one unk. Each piece is found by one
// walk forward through the sorted vocabulary (extend()), which ends where no entry
// continues, so a word costs its length times the longest entry's at most.
Result<size_t> Tokenizer::encode_wordpiece(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                           char* work) const {
  // Scratch: bert_words_scratch_bytes() (40 bytes per text byte and 32) of encode_scratch_bytes().
  static_assert(tokenizer::kBertScratchBytesPerByte <= kScratchBytesPerTextByte, "BERT's words fit the scratch");
  tokenizer::BertText how;
  how.lowercase = t_->lowercase();
  how.strip_accents = t_->strip_accents() == fb::AccentStripping_AsLowercase ? how.lowercase
                                                                              : t_->strip_accents() == fb::AccentStripping_Strip;
  const char* words = nullptr;
  const size_t length = tokenizer::bert_words(text, bytes, how, work, &words);
  size_t count = 0;
  const auto emit = [&](int32_t id) -> bool {
    if (count == capacity) return false;
    ids[count++] = id;
    return true;
  };
  // The entries beginning with "##" (continuations).
  const SortedVocab vocab(*t_);
  Prefix hashes = vocab.all();
  const bool any_continuation = vocab.extend(&hashes, '#') && vocab.extend(&hashes, '#');
  for (size_t w = 0; w < length;) {
    const char* word = words + w;
    const size_t n = std::strlen(word);
    w += n + 1;
    size_t chars = 0;
    for (size_t k = 0; k < n; ++k) chars += (static_cast<uint8_t>(word[k]) & 0xC0) != 0x80 ? 1 : 0;
    const size_t before = count;
    bool unknown = chars > 100;
    for (size_t start = 0; start < n && !unknown;) {
      // The longest entry ("##" + it after the first piece) that word[start..] begins
      // with and that ends at a character boundary.
      int32_t found = -1;
      size_t end = start;
      Prefix p = start > 0 ? hashes : vocab.all();
      if (start == 0 || any_continuation) {
        for (size_t k = start; k < n && vocab.extend(&p, static_cast<uint8_t>(word[k]));) {
          ++k;
          if (k < n && (static_cast<uint8_t>(word[k]) & 0xC0) == 0x80) continue;  // inside a character
          const int32_t id = vocab.exact(p);
          if (id >= 0) {
            found = id;
            end = k;
          }
        }
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

}  // namespace focal
