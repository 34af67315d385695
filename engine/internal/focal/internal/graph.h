// Facts derived from a model's FlatBuffer that the loader, the session and the writer
// all need, computed in one place so they always agree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/tensor.h"
#include "focal_generated.h"

namespace focal {

constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Offset of the data segment: the first multiple of 64 after the size-prefixed
// FlatBuffer. `prefixed_size` is 4 + the size stored in the prefix.
inline uint64_t data_segment_offset(uint64_t prefixed_size) { return align_up(prefixed_size, 64); }

inline DType to_dtype(fb::DType dtype) { return static_cast<DType>(dtype); }
inline TensorRole to_role(fb::TensorRole role) { return static_cast<TensorRole>(role); }

// The tensor's planned maximum shape. Only for verified tensors (rank <= kMaxRank).
Shape max_shape(const fb::Tensor& tensor);

// Bytes at the planned maximum shape. False when a dim is < 1 or the size overflows
// 2^62 (no real tensor is that large, and the bound leaves room for offset sums).
bool tensor_max_bytes(const fb::Tensor& tensor, uint64_t* bytes);

// When a tensor is alive, in op steps: written at step `first` (-1 for model inputs),
// last read at step `last` (op_count for model outputs). Two tensors whose lifetimes
// overlap must not share arena bytes. An op's inputs and outputs are alive together.
struct Lifetime {
  int32_t first;
  int32_t last;
};

inline bool lifetimes_overlap(const Lifetime& a, const Lifetime& b) {
  return a.first <= b.last && b.first <= a.last;
}

// One entry per tensor. Constants and states get {-1, op_count}: alive throughout
// (constants are never planned; states are planned where nothing else goes).
// Only for models whose op operands were verified to be in range.
void compute_lifetimes(const fb::Model& model, Lifetime* lifetimes);

}  // namespace focal
