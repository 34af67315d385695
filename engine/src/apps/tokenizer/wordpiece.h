// BERT's text splitting before WordPiece, exact over all of Unicode as Hugging Face
// tokenizers' BertNormalizer + BertPreTokenizer do it (transformers' BasicTokenizer):
//   1. clean_text: U+0000, U+FFFD and control characters (general category Cc, Cf or Co;
//      also Cs, which only malformed UTF-8 can spell) are dropped, except \t \n \r;
//      whitespace (\t \n \r and White_Space) becomes ' '.
//   2. handle_chinese_chars: a space either side of each CJK ideograph (the ranges of
//      tokenizers' is_chinese_char, wordpiece.cpp).
//   3. strip_accents: NFD, then the nonspacing marks (category Mn) dropped.
//   4. lowercase: each character's full lowercase (Rust's char::to_lowercase, no context:
//      U+0130 gives "i" + U+0307, a final capital sigma gives σ).
//   5. BertPreTokenizer: words end at White_Space, each punctuation character (ASCII
//      punctuation or category P*) is a word of its own.
// Malformed UTF-8 bytes pass through as letters of their word.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

struct BertText {
  bool lowercase = false;
  bool strip_accents = false;  // BertNormalizer's strip_accents (null: as lowercase)
};

// Scratch bytes bert_words() needs for `bytes` of text (wordpiece.cpp adds them up):
// 40 per byte and 32 more, at most.
constexpr size_t kBertScratchBytesPerByte = 40;
inline size_t bert_words_scratch_bytes(size_t bytes) { return kBertScratchBytesPerByte * bytes + 32; }

// Writes the words of text, each followed by a '\0' byte, into scratch (8-byte aligned,
// bert_words_scratch_bytes(bytes) long); sets *words to where they start and returns
// their total bytes (separators included).
size_t bert_words(const char* text, size_t bytes, BertText how, void* scratch, const char** words);

}  // namespace tokenizer
}  // namespace focal
