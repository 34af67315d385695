// BERT's text splitting before WordPiece (its BasicTokenizer): control characters
// dropped, whitespace separates words, lowercasing with accents stripped (uncased
// models), punctuation characters become words of their own. Exact for ASCII; beyond it
// accents are stripped from the Latin-1 letters and punctuation is recognised in the
// Latin-1, General Punctuation and CJK Symbols blocks (wordpiece.cpp lists them); CJK
// ideographs are words of their own, as BERT's tokenize_chinese_chars makes them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

// Writes the normalized words of text into out (each followed by a '\0' byte) and returns
// the bytes written; out must hold 2 * bytes + 1 (every character can grow by at most one
// separator; lowercasing and accent stripping never lengthen UTF-8).
size_t bert_words(const char* text, size_t bytes, bool lowercase, char* out);

}  // namespace tokenizer
}  // namespace focal
