// How K and V are stored (KvType in focal/attention.h), element by element: shared by
// the reference twin, the kernels' tails and the inspection of weights, so every reader
// dequantizes the same way.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/attention.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {

inline size_t kv_element_bytes(KvType type) {
  return type == KvType::kF32 ? 4 : type == KvType::kF16 ? 2 : 1;
}

// The int8 scale of key (or value) j of kv head g in batch row b; 1 for f32 and f16.
inline float kv_scale(const AttentionParams& p, const float* scales, const AttentionStrides& s,
                      size_t b, size_t j, size_t g) {
  if (p.kv_type != KvType::kI8) return 1.0f;
  return scales[b * s.batch + j * s.seq + g * s.head];
}

// Element `index` of K or V storage, unscaled (int8 as its integer value).
inline float kv_raw(const AttentionParams& p, const void* base, size_t index) {
  if (p.kv_type == KvType::kF16) return simd::half_to_float(static_cast<const uint16_t*>(base)[index]);
  if (p.kv_type == KvType::kI8) return static_cast<float>(static_cast<const int8_t*>(base)[index]);
  return static_cast<const float*>(base)[index];
}

// Element d of key j of kv head g, batch row b, as the f32 value it stands for.
inline float load_key(const AttentionParams& p, size_t b, size_t j, size_t g, size_t d) {
  const AttentionStrides& s = p.k_strides;
  return kv_raw(p, p.k, b * s.batch + j * s.seq + g * s.head + d) *
         kv_scale(p, p.k_scales, p.k_scale_strides, b, j, g);
}

inline float load_value(const AttentionParams& p, size_t b, size_t j, size_t g, size_t d) {
  const AttentionStrides& s = p.v_strides;
  return kv_raw(p, p.v, b * s.batch + j * s.seq + g * s.head + d) *
         kv_scale(p, p.v_scales, p.v_scale_strides, b, j, g);
}

}  // namespace kernels
}  // namespace focal
