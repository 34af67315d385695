// Plain descriptions of tensors as the public API shows them: no ownership.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/limits.h"

namespace focal {

// kI4: 4-bit weights in groups (focal/gemm.h, Int4 layout), only as packed dense weights.
enum class DType : uint8_t { kF32 = 0, kF16 = 1, kBF16 = 2, kI8 = 3, kI32 = 4, kI4 = 5 };

const char* dtype_name(DType dtype);
size_t dtype_size(DType dtype);  // bytes per element

enum class TensorRole : uint8_t {
  kConstant = 0,
  kInput = 1,
  kOutput = 2,
  kActivation = 3,
  kState = 4,  // kept across runs: KV caches, cross-attention keys and values
};

const char* tensor_role_name(TensorRole role);

struct Shape {
  int rank = 0;
  int64_t dims[kMaxRank] = {};

  int64_t element_count() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
};

// A tensor as described by the model file. `shape` is the planned maximum.
struct TensorInfo {
  const char* name = "";
  DType dtype = DType::kF32;
  TensorRole role = TensorRole::kActivation;
  Shape shape;
  int dim_symbols[kMaxRank] = {};  // per dim: -1 fixed, else a Model::symbol index
  size_t max_bytes = 0;            // bytes at the planned maximum shape
  uint64_t arena_offset = 0;       // non-constant tensors only
  // Inputs only: what a run writes into the input when the caller left it unset: -1
  // nothing (the run is refused), else every element this value (1: an attention_mask
  // of no padding; 0: a PyTorch key padding mask of no padding).
  int absent_fill = -1;
};

// A view of a tensor's current value inside a session's arena or the model's bytes.
// Valid while the session (or model bytes) lives and until the next run.
struct TensorView {
  const char* name = "";
  DType dtype = DType::kF32;
  Shape shape;  // actual shape of the last run (or bound input)
  void* data = nullptr;

  template <class T>
  T* as() const {
    return static_cast<T*>(data);
  }
};

}  // namespace focal
