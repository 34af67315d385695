#include "apps/tokenizer/sentencepiece_text.h"

#include <cstring>

namespace focal {
namespace tokenizer {
namespace {

const char kSpace[3] = {'\xE2', '\x96', '\x81'};  // U+2581, SentencePiece's word boundary

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

size_t normalize_sentencepiece(const char* text, size_t bytes, bool add_dummy_prefix, bool remove_extra_whitespaces,
                               char* out) {
  size_t begin = 0, end = bytes;
  if (remove_extra_whitespaces) {
    while (begin < end && text[begin] == ' ') ++begin;
    while (end > begin && text[end - 1] == ' ') --end;
  }
  if (begin == end) return 0;
  size_t n = 0;
  if (add_dummy_prefix) {
    std::memcpy(out, kSpace, 3);
    n = 3;
  }
  for (size_t i = begin; i < end; ++i) {
    if (text[i] != ' ') {
      out[n++] = text[i];
      continue;
    }
    if (remove_extra_whitespaces && text[i - 1] == ' ') continue;  // i > begin: text[begin] is no space
    std::memcpy(out + n, kSpace, 3);
    n += 3;
  }
  return n;
}

int byte_piece_value(const char* piece, size_t bytes) {
  if (bytes != 6 || std::memcmp(piece, "<0x", 3) != 0 || piece[5] != '>') return -1;
  const int high = hex_value(piece[3]), low = hex_value(piece[4]);
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

void byte_piece_text(uint8_t b, char out[6]) {
  static const char kHex[] = "0123456789ABCDEF";
  out[0] = '<';
  out[1] = '0';
  out[2] = 'x';
  out[3] = kHex[b >> 4];
  out[4] = kHex[b & 15];
  out[5] = '>';
}

}  // namespace tokenizer
}  // namespace focal
