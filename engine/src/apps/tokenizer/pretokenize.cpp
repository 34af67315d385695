#include "apps/tokenizer/pretokenize.h"

#include <cstring>
#include <initializer_list>

#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/unicode.h"

namespace focal {
namespace tokenizer {
namespace {

enum class CharClass { kSpace, kLetter, kNumber, kOther };

// One character of the text: its class, code point and byte length.
struct Char {
  CharClass klass;
  uint32_t cp;
  size_t length;
};

Char char_at(const char* text, size_t bytes, size_t i) {
  Char c{CharClass::kOther, 0, 0};
  c.length = utf8_decode(text, bytes, i, &c.cp);
  if (c.length == 1 && c.cp >= 0x80) return c;  // a malformed byte
  if (is_white_space(c.cp)) {
    c.klass = CharClass::kSpace;
  } else if (is_letter(c.cp)) {
    c.klass = CharClass::kLetter;
  } else if (is_number(c.cp)) {
    c.klass = CharClass::kNumber;
  }
  return c;
}

bool is_line_break(uint32_t cp) { return cp == '\r' || cp == '\n'; }

// The end of the run of `wanted` characters from text[i] (i itself when there is none),
// at most `most` characters long.
size_t run_end(const char* text, size_t bytes, size_t i, CharClass wanted, size_t most = SIZE_MAX) {
  for (size_t taken = 0; i < bytes && taken < most; ++taken) {
    const Char c = char_at(text, bytes, i);
    if (c.klass != wanted) break;
    i += c.length;
  }
  return i;
}

// 's|'t|'re|'ve|'m|'ll|'d at text[i], case-sensitively (GPT-2) or not (Llama 3: (?i)
// folds s with S and U+017F LONG S, the other letters with their ASCII capitals); or 0.
size_t contraction(const char* text, size_t bytes, size_t i, bool any_case) {
  if (text[i] != '\'') return 0;
  for (const char* suffix : {"s", "t", "re", "ve", "m", "ll", "d"}) {
    size_t at = i + 1;
    bool matched = true;
    for (const char* s = suffix; *s != '\0' && matched; ++s) {
      if (at >= bytes) {
        matched = false;
        break;
      }
      uint32_t cp = 0;
      const size_t length = utf8_decode(text, bytes, at, &cp);
      const uint32_t want = static_cast<uint8_t>(*s);
      matched = cp == want || (any_case && (cp == want - 'a' + 'A' || (want == 's' && cp == 0x17F)));
      at += length;
    }
    if (matched) return at - i;
  }
  return 0;
}

// " ?X+" at text[i] for the class X: an optional U+0020, then a maximal run; or 0.
size_t spaced_run(const char* text, size_t bytes, size_t i, CharClass wanted) {
  const size_t from = i + (text[i] == ' ' ? 1 : 0);
  const size_t end = run_end(text, bytes, from, wanted);
  return end > from ? end - i : 0;
}

// \s+(?!\S)|\s+ at text[i] (a space): the run, less its last character when a non-space
// follows (that one then starts the next pre-token) unless the run is one character.
size_t space_run(const char* text, size_t bytes, size_t i) {
  size_t j = i, last = i;
  while (j < bytes) {
    const Char c = char_at(text, bytes, j);
    if (c.klass != CharClass::kSpace) break;
    last = j;
    j += c.length;
  }
  if (j < bytes && last > i) j = last;
  return j - i;
}

size_t gpt2_pretoken(const char* text, size_t bytes, size_t i) {
  if (size_t n = contraction(text, bytes, i, false)) return n;
  for (CharClass c : {CharClass::kLetter, CharClass::kNumber, CharClass::kOther}) {
    if (size_t n = spaced_run(text, bytes, i, c)) return n;
  }
  return space_run(text, bytes, i);  // only a space can be left here
}

size_t llama3_pretoken(const char* text, size_t bytes, size_t i, size_t most_digits) {
  if (size_t n = contraction(text, bytes, i, true)) return n;
  const Char first = char_at(text, bytes, i);
  // [^\r\n\p{L}\p{N}]?\p{L}+
  const bool prefix = first.klass != CharClass::kLetter && first.klass != CharClass::kNumber && !is_line_break(first.cp);
  const size_t letters_from = prefix ? i + first.length : i;
  const size_t letters_end = run_end(text, bytes, letters_from, CharClass::kLetter);
  if (letters_end > letters_from) return letters_end - i;
  if (first.klass == CharClass::kNumber) return run_end(text, bytes, i, CharClass::kNumber, most_digits) - i;
  // " ?[^\s\p{L}\p{N}]+[\r\n]*"
  if (size_t n = spaced_run(text, bytes, i, CharClass::kOther)) {
    size_t end = i + n;
    while (end < bytes && is_line_break(static_cast<uint8_t>(text[end]))) ++end;
    return end - i;
  }
  // \s*[\r\n]+: through the run's last line break, when it has one.
  size_t end = i, through_break = i;
  while (end < bytes) {
    const Char c = char_at(text, bytes, end);
    if (c.klass != CharClass::kSpace) break;
    end += c.length;
    if (is_line_break(c.cp)) through_break = end;
  }
  if (through_break > i) return through_break - i;
  return space_run(text, bytes, i);
}

}  // namespace

size_t next_pretoken(SplitPattern pattern, const char* text, size_t bytes, size_t i) {
  switch (pattern) {
    case SplitPattern::kLlama3: return llama3_pretoken(text, bytes, i, 3);
    case SplitPattern::kQwen2: return llama3_pretoken(text, bytes, i, 1);
    case SplitPattern::kGpt2: break;
  }
  return gpt2_pretoken(text, bytes, i);
}

}  // namespace tokenizer
}  // namespace focal
