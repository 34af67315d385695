#include "tokenizer/pretokenize.h"

#include <cstring>
#include <initializer_list>

namespace focal {
namespace tokenizer {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }
bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (static_cast<unsigned char>(c) >= 0x80);
}
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_other(char c) { return !is_space(c) && !is_letter(c) && !is_digit(c); }

// The contraction at text[i] ("'s", "'t", "'re", ...), or 0.
size_t contraction(const char* text, size_t bytes, size_t i) {
  if (text[i] != '\'') return 0;
  for (const char* suffix : {"re", "ve", "ll", "s", "t", "m", "d"}) {
    const size_t n = std::strlen(suffix);
    if (i + 1 + n <= bytes && std::strncmp(text + i + 1, suffix, n) == 0) return 1 + n;
  }
  return 0;
}

// " ?class+" at text[i]: an optional space then a maximal run of the class, or 0.
template <class Class>
size_t spaced_run(const char* text, size_t bytes, size_t i, Class in_class) {
  size_t j = i + (text[i] == ' ' ? 1 : 0);
  if (j >= bytes || !in_class(text[j])) return 0;
  while (j < bytes && in_class(text[j])) ++j;
  return j - i;
}

}  // namespace

size_t next_pretoken(const char* text, size_t bytes, size_t i) {
  if (size_t n = contraction(text, bytes, i)) return n;
  if (size_t n = spaced_run(text, bytes, i, is_letter)) return n;
  if (size_t n = spaced_run(text, bytes, i, is_digit)) return n;
  if (size_t n = spaced_run(text, bytes, i, is_other)) return n;
  // Whitespace: the run, less its last character when a non-space follows (that one
  // joins the next token as its leading space) unless the run is a single character.
  size_t j = i;
  while (j < bytes && is_space(text[j])) ++j;
  if (j == i) return 1;  // unreachable: every byte is in one class
  if (j < bytes && j - i > 1) --j;
  return j - i;
}

}  // namespace tokenizer
}  // namespace focal
