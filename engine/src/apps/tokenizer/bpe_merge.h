// BPE's merging, shared by byte-level BPE (encode_byte_level_bpe.cpp) and SentencePiece's
// BPE (encode_sentencepiece_bpe.cpp): the working arrays of a run over n symbols, in
// caller memory; Tokenizer::merge_symbols (bpe_merge.cpp) merges them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

// The working arrays of a BPE run over n symbols, in caller memory: the heap of pair keys
// (at most n - 1 + 2 (n - 1) are ever pushed), then six arrays of n 32-bit values: the
// token, previous, next, the merge of the pair starting there and its rank, and the byte
// offset of the symbol in the text. 48 n bytes.
struct BpeWork {
  static constexpr size_t kBytesPerSymbol = 3 * sizeof(uint64_t) + 6 * sizeof(int32_t);
  uint64_t* heap;
  int32_t *token, *merged, *rank;
  uint32_t *prev, *next, *offset;

  BpeWork(void* work, size_t n) : heap(static_cast<uint64_t*>(work)) {
    token = reinterpret_cast<int32_t*>(heap + 3 * n);
    prev = reinterpret_cast<uint32_t*>(token + n);
    next = prev + n;
    merged = reinterpret_cast<int32_t*>(next + n);  // -1: no merge (or a dead node)
    rank = merged + n;
    offset = reinterpret_cast<uint32_t*>(rank + n);
  }
};

constexpr uint32_t kNone = UINT32_MAX;

}  // namespace tokenizer
}  // namespace focal
