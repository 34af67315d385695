// The pre-tokenizers of byte-level BPE: the regular expressions tokenizer.json files give
// (tokenizers' ByteLevel and Split pre-tokenizers, leftmost-first alternation as Rust's
// regex crate matches them), each as a scanner over UTF-8 characters with the exact
// Unicode classes of unicode.h (\p{L}, \p{N}, \s = White_Space):
//   kGpt2    's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//            (GPT-2, and ByteLevel's own regex: RoBERTa, Phi-2, SmolLM2, ...)
//   kLlama3  (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//            ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+      (Llama 3.x)
//   kQwen2   the same with \p{N} for \p{N}{1,3}                     (Qwen2, 2.5, 3)
// Malformed UTF-8 bytes count as characters of no class (neither letter, number nor space).
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

enum class SplitPattern : uint8_t { kGpt2 = 0, kLlama3 = 1, kQwen2 = 2 };

// The length of the pre-token starting at text[i] (i < bytes), >= 1.
size_t next_pretoken(SplitPattern pattern, const char* text, size_t bytes, size_t i);

}  // namespace tokenizer
}  // namespace focal
