// Facts derived from a model's FlatBuffer that the loader, the session and the writer
// all need, computed in one place so they always agree.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/activation.h"
#include "focal/tensor.h"
#include "focal_generated.h"

namespace focal {

constexpr uint64_t align_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

// Offset of the data segment: the first multiple of 64 after the size-prefixed
// FlatBuffer. `prefixed_size` is 4 + the size stored in the prefix.
inline uint64_t data_segment_offset(uint64_t prefixed_size) { return align_up(prefixed_size, 64); }

// The engine's enums mirror the schema's value for value, so converting is a cast; these
// checks keep the two in step when either gains a value.
static_assert(int(DType::kF32) == fb::DType_F32 && int(DType::kF16) == fb::DType_F16 &&
                  int(DType::kBF16) == fb::DType_BF16 && int(DType::kI8) == fb::DType_I8 &&
                  int(DType::kI32) == fb::DType_I32 && int(DType::kI4) == fb::DType_I4 &&
                  fb::DType_MAX == fb::DType_I4,
              "focal::DType (focal/tensor.h) must mirror the schema's DType");
static_assert(int(TensorRole::kConstant) == fb::TensorRole_Constant &&
                  int(TensorRole::kInput) == fb::TensorRole_Input &&
                  int(TensorRole::kOutput) == fb::TensorRole_Output &&
                  int(TensorRole::kActivation) == fb::TensorRole_Activation &&
                  int(TensorRole::kState) == fb::TensorRole_State &&
                  fb::TensorRole_MAX == fb::TensorRole_State,
              "focal::TensorRole (focal/tensor.h) must mirror the schema's TensorRole");
static_assert(int(Activation::kNone) == fb::Activation_None &&
                  int(Activation::kRelu) == fb::Activation_Relu &&
                  int(Activation::kGeluErf) == fb::Activation_GeluErf &&
                  int(Activation::kGeluTanh) == fb::Activation_GeluTanh &&
                  int(Activation::kSilu) == fb::Activation_Silu &&
                  int(Activation::kTanh) == fb::Activation_Tanh &&
                  int(Activation::kSigmoid) == fb::Activation_Sigmoid &&
                  fb::Activation_MAX == fb::Activation_Sigmoid,
              "focal::Activation (focal/activation.h) must mirror the schema's Activation");

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
