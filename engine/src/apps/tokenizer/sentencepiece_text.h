// SentencePiece's text normalization (the parts its normalizer spec flags control, with
// the identity character map): spaces become U+2581, optionally one before the text
// (add_dummy_prefix), and optionally spaces at both ends dropped and runs of spaces made
// one (remove_extra_whitespaces). Also the <0xXX> byte pieces of byte fallback.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

// The most bytes normalize_sentencepiece() writes for `bytes` of text: each space (1
// byte) becomes 3, plus the dummy prefix.
constexpr size_t normalized_bytes(size_t bytes) { return 3 * bytes + 3; }

// Writes the normalized text to `out` (normalized_bytes(bytes) long) and returns its
// length; empty text (or only spaces, with remove_extra_whitespaces) gives 0 bytes.
size_t normalize_sentencepiece(const char* text, size_t bytes, bool add_dummy_prefix, bool remove_extra_whitespaces,
                               char* out);

// The byte a piece "<0xXX>" (two upper-case hex digits) stands for, or -1.
int byte_piece_value(const char* piece, size_t bytes);

// Writes "<0xXX>" (6 bytes) for byte b.
void byte_piece_text(uint8_t b, char out[6]);

}  // namespace tokenizer
}  // namespace focal
