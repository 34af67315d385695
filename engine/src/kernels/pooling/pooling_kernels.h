// Pooling a sequence of vectors into one per batch row: masked mean (sentence
// embeddings) and CLS (the first token, BERT's classifier input), as a kernel table per
// instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written once in pooling_simd.hpp) and the scalar
// reference twins (reference.cpp). Kernels trust their arguments (lengths are checked
// by focal::mean_pool in pointwise_dispatch.h) and never allocate.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace kernels {

struct PoolParams {
  size_t batch = 1, seq = 0, dim = 0;
  const float* x = nullptr;          // [batch, seq, dim], dense
  const int32_t* lengths = nullptr;  // [batch], each in [0, seq]; null: every row has seq
  float* out = nullptr;              // [batch, dim], dense
};

// out[b, :] = sum_{s < lengths[b]} x[b, s, :] / lengths[b]; a length of 0 gives zeros
// (as sentence-transformers, whose count is clamped to 1e-9 and the sum is 0). Only the
// first lengths[b] positions are read: the rest may hold anything, NaN included. The
// sum runs over positions in order, in f32, then one division (not a reciprocal).
void mean_pool_reference(const PoolParams& p);

// out[b, :] = x[b, 0, :] (lengths are ignored; seq >= 1).
void cls_pool_reference(const PoolParams& p);

using PoolFn = void (*)(const PoolParams& p);

struct PoolingKernelTable {
  const char* isa;
  PoolFn mean_pool;
  PoolFn cls_pool;
};

}  // namespace kernels
}  // namespace focal
