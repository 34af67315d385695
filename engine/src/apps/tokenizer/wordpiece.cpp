#include "apps/tokenizer/wordpiece.h"

#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/unicode.h"

namespace focal {
namespace tokenizer {
namespace {

// utf8_decode() gives a malformed byte as a one-byte "character" of its value; it is no
// Latin-1 character (0xA0 is no space), so the stages below copy it unexamined.
bool malformed(size_t length, uint32_t cp) { return length == 1 && cp >= 0x80; }

// tokenizers' is_control (unicode_categories' is_other: Cc, Cf, Co) without \t \n \r,
// plus Cs, which Rust text cannot hold and only malformed UTF-8 (encoded surrogates)
// can spell here; unassigned code points (Cn) stay.
bool is_control(uint32_t cp) {
  if (cp == '\t' || cp == '\n' || cp == '\r') return false;
  const Category c = general_category(cp);
  return c == Category::Cc || c == Category::Cf || c == Category::Co || c == Category::Cs;
}

// tokenizers' is_chinese_char, its ranges as the Rust source has them (the fifth starts
// at U+2B920, where transformers' Python has U+2B820).
bool is_chinese(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B920 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// BertPreTokenizer's is_bert_punc: ASCII punctuation (symbols such as $ + < = > ^ ` |
// included) or any Unicode punctuation category.
bool is_bert_punctuation(uint32_t cp) {
  const bool ascii = (cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) ||
                     (cp >= 123 && cp <= 126);
  return ascii || is_punctuation(cp);
}

// Stages 1 and 2 (clean_text, handle_chinese_chars): out holds 2 bytes per text byte
// (a character grows only when it is an ideograph, 3 or 4 bytes, by its 2 spaces).
size_t clean(const char* text, size_t bytes, char* out) {
  size_t written = 0;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = utf8_decode(text, bytes, i, &cp);
    const char* at = text + i;
    i += n;
    if (malformed(n, cp)) {
      out[written++] = *at;
    } else if (cp == 0 || cp == 0xFFFD || is_control(cp)) {
      continue;
    } else if (cp == '\t' || cp == '\n' || cp == '\r' || is_white_space(cp)) {
      out[written++] = ' ';
    } else if (is_chinese(cp)) {
      out[written++] = ' ';
      for (size_t k = 0; k < n; ++k) out[written++] = at[k];
      out[written++] = ' ';
    } else {
      for (size_t k = 0; k < n; ++k) out[written++] = at[k];
    }
  }
  return written;
}

// Stages 3 (the Mn dropping half; NFD came before), 4 and 5. out holds 3 bytes per byte of
// text: a character of n bytes gives at most n + 1 (only U+0130, U+023A and U+023E, 2
// bytes, lowercase to 3) and 2 separators.
size_t split_words(const char* text, size_t bytes, BertText how, char* out) {
  size_t written = 0;
  bool in_word = false;
  const auto end_word = [&]() {
    if (in_word) out[written++] = '\0';
    in_word = false;
  };
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = utf8_decode(text, bytes, i, &cp);
    const char* at = text + i;
    i += n;
    if (malformed(n, cp)) {
      out[written++] = *at;
      in_word = true;
      continue;
    }
    if (how.strip_accents && general_category(cp) == Category::Mn) continue;
    uint32_t lower[2] = {cp, 0};
    const size_t count = how.lowercase ? to_lowercase(cp, lower) : 1;
    for (size_t k = 0; k < count; ++k) {  // the pre-tokenizer sees the lowercased text
      if (is_white_space(lower[k])) {
        end_word();
      } else if (is_bert_punctuation(lower[k])) {
        end_word();
        written += utf8_encode_any(lower[k], out + written);
        out[written++] = '\0';
      } else {
        written += utf8_encode_any(lower[k], out + written);
        in_word = true;
      }
    }
  }
  end_word();
  return written;
}

}  // namespace

// Scratch layout, B = text bytes: the NFD work words (normalization_work_words(2B): 32B + 16
// bytes), the cleaned text (2B), its NFD (kNormalizedBytesPerByte = 3 times that: 6B); the
// words (3 bytes per byte of the cleaned text or its NFD: at most 18B) are written over the
// work words, which NFD no longer needs. 40B + 16 in all.
size_t bert_words(const char* text, size_t bytes, BertText how, void* scratch, const char** words) {
  uint32_t* work = static_cast<uint32_t*>(scratch);
  char* cleaned = reinterpret_cast<char*>(work + normalization_work_words(2 * bytes));
  const size_t cleaned_bytes = clean(text, bytes, cleaned);
  const char* source = cleaned;
  size_t source_bytes = cleaned_bytes;
  if (how.strip_accents) {
    char* decomposed = cleaned + 2 * bytes;
    source_bytes = to_nfd(cleaned, cleaned_bytes, decomposed, work);
    source = decomposed;
  }
  char* out = static_cast<char*>(scratch);
  *words = out;
  return split_words(source, source_bytes, how, out);
}

}  // namespace tokenizer
}  // namespace focal
