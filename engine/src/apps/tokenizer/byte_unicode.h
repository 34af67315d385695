// GPT-2's reversible map between bytes and unicode characters (encoder.py's
// bytes_to_unicode): printable bytes stand for themselves, the other 68 (control, space,
// 127-160, 173) map to U+0100 onwards in byte order, so every token is printable text.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

inline bool byte_is_printable(uint32_t b) {
  return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
}

// The code point standing for byte b.
inline uint32_t byte_to_code_point(uint32_t b) {
  if (byte_is_printable(b)) return b;
  uint32_t n = 0;  // how many non-printable bytes come before b
  for (uint32_t i = 0; i < b; ++i) n += byte_is_printable(i) ? 0 : 1;
  return 256 + n;
}

// The byte a code point stands for, or -1.
inline int code_point_to_byte(uint32_t cp) {
  if (cp < 256) return byte_is_printable(cp) ? int(cp) : -1;
  uint32_t n = cp - 256;
  for (uint32_t b = 0; b < 256; ++b) {
    if (byte_is_printable(b)) continue;
    if (n-- == 0) return int(b);
  }
  return -1;
}

// UTF-8 of a code point below U+0800 (all this map needs); returns the byte count.
inline size_t utf8_encode(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = char(cp);
    return 1;
  }
  out[0] = char(0xC0 | (cp >> 6));
  out[1] = char(0x80 | (cp & 0x3F));
  return 2;
}

// Decodes one UTF-8 character at text[i] (i < bytes); returns its byte length (1 for a
// malformed byte, whose value is then the code point).
inline size_t utf8_decode(const char* text, size_t bytes, size_t i, uint32_t* cp) {
  const uint8_t c = uint8_t(text[i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
  if (i + n > bytes) n = 1;
  for (size_t k = 1; k < n; ++k) {
    if ((uint8_t(text[i + k]) & 0xC0) != 0x80) n = 1;
  }
  if (n == 1) {
    *cp = c;
    return 1;
  }
  uint32_t v = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) v = (v << 6) | (uint8_t(text[i + k]) & 0x3F);
  *cp = v;
  return n;
}

}  // namespace tokenizer
}  // namespace focal
