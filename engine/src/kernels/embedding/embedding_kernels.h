// Embedding gather: rows of a [vocab, dim] table picked by token ids, optionally scaled
// (the original Transformer and Gemma multiply embeddings by sqrt(dim)); the table is
// row-major or, for a tied LM head, a Dense weight's packed panels (packed_table.h). As a kernel
// table per instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written once in embedding_simd.hpp)
// and the scalar reference twin (reference.cpp).
//
// The kernels trust the ids: every id must be in [0, vocab). The checked entry point
// (focal::embedding_gather in pointwise_dispatch.h) refuses an out-of-range id, naming
// it and its position, before any kernel runs.
#pragma once

#include <cstddef>
#include <cstdint>

#include "embedding/packed_table.h"

namespace focal {
namespace kernels {

enum class EmbeddingType {
  kF32,
  kF16,   // IEEE binary16, converted exactly
  kBF16,  // bfloat16 (the top half of an f32), converted exactly; packed tables only
  kI8,    // symmetric per row: value = row_scales[id] * q
};

struct EmbeddingParams {
  size_t count = 0;  // tokens
  size_t dim = 0;
  size_t vocab = 0;  // rows of the table
  EmbeddingType type = EmbeddingType::kF32;
  EmbeddingLayout layout = EmbeddingLayout::kRows;
  const void* table = nullptr;   // [vocab, dim] of `type` in `layout`
  const float* row_scales = nullptr;  // kI8 only: [vocab] (packed: the scales inside the table's bytes)
  const int32_t* ids = nullptr;  // [count], each in [0, vocab)
  float scale = 1.0f;            // out = table[id] * scale
  float* out = nullptr;          // [count, dim], dense rows
};

// out[t, :] = table[ids[t], :] * scale (kI8: table[ids[t], :] * row_scales[ids[t]] * scale).
void embedding_gather_reference(const EmbeddingParams& p);

using EmbeddingGatherFn = void (*)(const EmbeddingParams& p);

struct EmbeddingKernelTable {
  const char* isa;
  EmbeddingGatherFn gather;
};

}  // namespace kernels
}  // namespace focal
