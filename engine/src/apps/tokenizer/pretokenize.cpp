#include "apps/tokenizer/pretokenize.h"

#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "apps/tokenizer/byte_unicode.h"

namespace focal {
namespace tokenizer {
namespace {

enum class CharClass { kSpace, kLetter, kDigit, kOther };

// The class of the character at text[i] and its byte length. ASCII exactly as \s, \p{L},
// \p{N}; beyond ASCII, general punctuation, symbols and arrows (U+2000-U+2BFF), CJK
// punctuation (U+3000-U+303F), the replacement-character block and emoji (U+1F000 on)
// count as other, the rest as letters (an approximation of \p{L}: exact for ASCII and for
// the letters of the Latin, Greek and Cyrillic scripts).
CharClass class_at(const char* text, size_t bytes, size_t i, size_t* length) {
  uint32_t cp = 0;
  *length = utf8_decode(text, bytes, i, &cp);
  if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == '\v' || cp == '\f') return CharClass::kSpace;
  if (cp >= '0' && cp <= '9') return CharClass::kDigit;
  if ((cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z')) return CharClass::kLetter;
  if (cp < 0x80) return CharClass::kOther;
  if ((cp >= 0xA0 && cp <= 0xBF) || cp == 0xD7 || cp == 0xF7) return CharClass::kOther;  // Latin-1 symbols
  if ((cp >= 0x2000 && cp <= 0x2BFF) || (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFFF0 && cp <= 0xFFFF) ||
      cp >= 0x1F000) {
    return CharClass::kOther;
  }
  return CharClass::kLetter;
}

// The contraction at text[i] ("'s", "'t", "'re", ...), or 0.
size_t contraction(const char* text, size_t bytes, size_t i) {
  if (text[i] != '\'') return 0;
  for (const char* suffix : {"re", "ve", "ll", "s", "t", "m", "d"}) {
    const size_t n = std::strlen(suffix);
    if (i + 1 + n <= bytes && std::strncmp(text + i + 1, suffix, n) == 0) return 1 + n;
  }
  return 0;
}

// " ?class+" at text[i]: an optional space, then a maximal run of the class; or 0.
size_t spaced_run(const char* text, size_t bytes, size_t i, CharClass wanted) {
  size_t j = i + (text[i] == ' ' ? 1 : 0);
  size_t length = 0;
  if (j >= bytes || class_at(text, bytes, j, &length) != wanted) return 0;
  while (j < bytes && class_at(text, bytes, j, &length) == wanted) j += length;
  return j - i;
}

}  // namespace

size_t next_pretoken(const char* text, size_t bytes, size_t i) {
  if (size_t n = contraction(text, bytes, i)) return n;
  for (CharClass c : {CharClass::kLetter, CharClass::kDigit, CharClass::kOther}) {
    if (size_t n = spaced_run(text, bytes, i, c)) return n;
  }
  // Whitespace: the run, less its last character when a non-space follows (that one
  // joins the next token as its leading space) unless the run is a single character.
  size_t j = i, last = i, length = 0;
  while (j < bytes && class_at(text, bytes, j, &length) == CharClass::kSpace) {
    last = j;
    j += length;
  }
  if (j == i) return 1;  // unreachable: every character has a class
  if (j < bytes && last > i) j = last;
  return j - i;
}

}  // namespace tokenizer
}  // namespace focal
