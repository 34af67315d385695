// GPT-2's pre-tokenization, the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// as a scanner. \p{L} is ASCII letters plus every non-ASCII character, \p{N} ASCII digits
// (an approximation for non-ASCII text: exact for ASCII, which the bundled models use).
#pragma once

#include <cstddef>

namespace focal {
namespace tokenizer {

// The length of the pre-token starting at text[i] (i < bytes), >= 1.
size_t next_pretoken(const char* text, size_t bytes, size_t i);

}  // namespace tokenizer
}  // namespace focal
