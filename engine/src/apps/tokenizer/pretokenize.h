// GPT-2's pre-tokenization, the regex
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// as a scanner over UTF-8 characters: exact for ASCII; beyond it, an approximation of the
// Unicode classes (pretokenize.cpp says which characters count as what).
#pragma once

#include <cstddef>

namespace focal {
namespace tokenizer {

// The length of the pre-token starting at text[i] (i < bytes), >= 1.
size_t next_pretoken(const char* text, size_t bytes, size_t i);

}  // namespace tokenizer
}  // namespace focal
