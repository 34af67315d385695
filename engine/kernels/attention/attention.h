// Scaled dot-product attention over strided Q, K, V (the kernel family of issue 2/8 will
// add the tiled SIMD versions; this is their scalar reference twin).
//
// For batch b, head h, query i: out[b, i, h, :] = sum_j softmax_j(s_ij) v[b, j, g, :]
// with s_ij = scale * q[b, i, h, :] . k[b, j, g, :], g = h / (heads / kv_heads)
// (grouped-query: consecutive query heads share a kv head).
#pragma once

#include <cstddef>

namespace focal {
namespace kernels {

// Element strides of a [batch, seq, heads, dim] tensor; dim is contiguous. A
// [batch, heads, seq, dim] tensor is described by swapping seq and head strides.
struct AttentionStrides {
  size_t batch;
  size_t seq;
  size_t head;
};

struct AttentionParams {
  size_t batch;
  size_t heads;
  size_t kv_heads;  // divides heads
  size_t q_len;
  size_t kv_len;
  size_t head_dim;
  float scale;  // usually 1 / sqrt(head_dim)
  // Causal: query i sees keys j <= i + causal_offset. With a cached prefix,
  // causal_offset = kv_len - q_len puts the queries at the end of the keys.
  bool causal;
  long causal_offset;
  AttentionStrides q, k, v, out;
};

// A query with no visible key (possible with causal_offset < 0) yields zeros.
void attention_f32_reference(const AttentionParams& p, const float* q, const float* k,
                             const float* v, float* out);

}  // namespace kernels
}  // namespace focal
