// Which keys a query row sees, and its bias: shared by the reference and every SIMD
// kernel so that all agree on the mask exactly.
#pragma once

#include <cmath>

#include "focal/attention.h"

namespace focal {
namespace kernels {

struct KeyRange {
  size_t begin;
  size_t end;  // exclusive; begin >= end means no visible key
};

inline float effective_scale(const AttentionParams& p) {
  return p.scale > 0.0f ? p.scale : 1.0f / std::sqrt(static_cast<float>(p.head_dim));
}

// Keys visible to query position i of batch row b: padding, causality and the window
// each cut the range [0, kv_len) from one side.
inline KeyRange visible_keys(const AttentionParams& p, size_t b, size_t i) {
  int64_t begin = 0;
  int64_t end = static_cast<int64_t>(p.kv_len);
  if (p.mask.key_lengths != nullptr && p.mask.key_lengths[b] < end) end = p.mask.key_lengths[b];
  if (p.mask.causal) {
    const int64_t last = static_cast<int64_t>(i) + p.mask.causal_offset;
    if (last + 1 < end) end = last + 1;
    if (p.mask.window > 0 && last - p.mask.window + 1 > begin) begin = last - p.mask.window + 1;
  }
  if (end < 0) end = 0;
  if (begin > end) begin = end;
  return {static_cast<size_t>(begin), static_cast<size_t>(end)};
}

inline float bias_at(const AttentionMask& m, size_t b, size_t h, size_t i, size_t j) {
  if (m.bias == nullptr) return 0.0f;
  // In steps that each stay inside the bias (its q stride may be negative).
  const float* row = m.bias + b * m.bias_batch_stride + h * m.bias_head_stride;
  return (row + static_cast<ptrdiff_t>(i) * m.bias_q_stride)[j];
}

}  // namespace kernels
}  // namespace focal
