// The limits that several stages share: the converter that writes a model, the verifier
// that loads it, the session that runs it and the ops and kernels behind it. In one
// place, so what one stage promises is what the next one checks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {

// Dims per tensor.
constexpr int kMaxRank = 6;
// Tensors and ops per model, and the longest axis: they keep a hostile file from making
// verification itself slow or huge (no real model comes near them).
constexpr uint32_t kMaxTensors = 16384;
constexpr uint32_t kMaxOps = 16384;
constexpr int64_t kMaxDim = (int64_t(1) << 31) - 1;
// Input or output operands per op (MultiHeadAttention has 18 input slots).
constexpr int kMaxOperands = 18;
// Symbolic dims (batch, seq, ...), model inputs, and stages (prefill, decode, ...) per
// model: the session keeps fixed arrays of each, so a run never allocates.
constexpr int kMaxSymbols = 8;
constexpr int kMaxModelInputs = 64;
constexpr int kMaxStages = 4;
// The largest planned arena: an eighth of the address space (512 MiB on 32-bit targets),
// so rounding it up and adding the ops' workspace can never wrap a size_t, and every
// offset and size inside it fits one.
constexpr uint64_t kMaxArenaBytes = uint64_t(SIZE_MAX / 8);
// The attention kernels' largest head dim (query/key/value floats per head).
constexpr size_t kMaxAttentionHeadDim = 256;
// The longest tokenizer vocabulary entry, in bytes. The tokenizers walk the vocabulary (and
// the added tokens) forward from each text position until no entry continues, so encoding
// takes at most the text's length times this many steps, each a binary search over the
// entries. Real vocabularies' longest entries are a few hundred bytes (a byte-level BPE
// token of 128 bytes is 256 in its UTF-8 form).
constexpr size_t kMaxTokenBytes = 1024;

}  // namespace focal
