#include "apps/tokenizer/wordpiece.h"

#include "apps/tokenizer/byte_unicode.h"

namespace focal {
namespace tokenizer {
namespace {

bool is_whitespace(uint32_t cp) {
  return cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

bool is_control(uint32_t cp) {
  return cp == 0 || cp == 0xFFFD || (cp < 0x20 && !is_whitespace(cp)) || (cp >= 0x7F && cp <= 0x9F) ||
         (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) || cp == 0xFEFF;
}

bool is_punctuation(uint32_t cp) {
  if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126)) {
    return true;
  }
  switch (cp) {
    case 0xA1: case 0xA7: case 0xAB: case 0xB6: case 0xB7: case 0xBB: case 0xBF:
      return true;
    default:
      break;
  }
  return (cp >= 0x2010 && cp <= 0x2027) || (cp >= 0x2030 && cp <= 0x205E) || (cp >= 0x3001 && cp <= 0x3003) ||
         (cp >= 0x3008 && cp <= 0x3011);
}

// BERT's _is_chinese_char: the CJK Unified Ideographs blocks, each such character a word
// of its own (tokenize_chinese_chars, BertNormalizer's handle_chinese_chars).
bool is_chinese(uint32_t cp) {
  return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
         (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

// Lowercase, then the base letter of a Latin-1 letter with a diacritic (NFD without its
// combining mark); letters without a decomposition (æ, ø, ð, þ, ß) stay.
uint32_t uncased(uint32_t cp) {
  if (cp >= 'A' && cp <= 'Z') return cp + 32;
  if (cp >= 0xC0 && cp <= 0xDE && cp != 0xD7) cp += 32;  // Latin-1 capitals to small letters
  static const char kBase[32] = {'a', 'a', 'a', 'a', 'a', 'a', 0,   'c', 'e', 'e', 'e', 'e', 'i', 'i', 'i', 'i',
                                 0,   'n', 'o', 'o', 'o', 'o', 'o', 0,   0,   'u', 'u', 'u', 'u', 'y', 0,   'y'};
  if (cp >= 0xE0 && cp <= 0xFF && kBase[cp - 0xE0] != 0) return static_cast<uint32_t>(kBase[cp - 0xE0]);
  return cp;
}

size_t put(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) return utf8_encode(cp, out);
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

}  // namespace

size_t bert_words(const char* text, size_t bytes, bool lowercase, char* out) {
  size_t written = 0;
  bool in_word = false;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = utf8_decode(text, bytes, i, &cp);
    const size_t start = i;
    i += n;
    if (is_control(cp)) continue;
    if (is_whitespace(cp)) {
      if (in_word) out[written++] = '\0';
      in_word = false;
      continue;
    }
    if (lowercase) cp = uncased(cp);
    if (is_punctuation(cp) || is_chinese(cp)) {
      if (in_word) out[written++] = '\0';
      written += put(cp, out + written);
      out[written++] = '\0';
      in_word = false;
      continue;
    }
    // A malformed byte passes through as itself (utf8_decode gave its value).
    if (n == 1 && cp >= 0x80) {
      out[written++] = text[start];
    } else {
      written += put(cp, out + written);
    }
    in_word = true;
  }
  if (in_word) out[written++] = '\0';
  return written;
}

}  // namespace tokenizer
}  // namespace focal
