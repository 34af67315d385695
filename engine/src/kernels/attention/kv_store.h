// Appending to a KV cache: f32 K or V rows, as the op projected them, written in the
// cache's storage type (KvType in focal/attention.h). int8 is symmetric with one scale
// per (token, kv head), by the one row quantizer (focal/internal/int8_row.h): scale =
// max |x| / 127, q = rint(x * (127 / max |x|)), 0 for an all-zero head.
#pragma once

#include <cstddef>

#include "focal/attention.h"

namespace focal {
namespace kernels {

struct KvRows {
  const float* x;     // [tokens, heads * head_dim], rows `x_stride` floats apart
  size_t x_stride;
  size_t tokens, heads, head_dim;
};

// Stores `rows` at `dst` (token t at dst + t * dst_stride elements of `type`) and, for
// kI8, the scales at scales + t * scale_stride + head (ignored otherwise). A head with
// a NaN or infinity gets a NaN scale (and zeros), so it reads back as NaN, as f32 would.
// Scalar on purpose: a decode step appends one token per layer, and even a 4096-token
// prompt's appends are a small share of its projections.
void store_kv_rows(const KvRows& rows, KvType type, void* dst, size_t dst_stride, float* scales,
                   size_t scale_stride);

}  // namespace kernels
}  // namespace focal
