// Scaled dot-product attention that applications can call on their own buffers: one
// tiled, vectorized kernel (FlashAttention-2 style online softmax) for every case, with
// a scalar reference twin that tests compare it against.
//
//   out[b, i, h, :] = sum_j softmax_j(s[b, h, i, j]) * v[b, j, g, :]
//   s[b, h, i, j]   = scale * q[b, i, h, :] . k[b, j, g, :] + bias[b, h, i, j]   (or -inf if masked)
//   g = h / (heads / kv_heads)     (grouped-query: consecutive query heads share a kv head)
//
// Tensors are addressed by element strides, so both [batch, seq, heads, dim] and
// [batch, heads, seq, dim] layouts (and a KV cache with room beyond kv_len) work; the
// dim axis is contiguous. A query row that sees no key yields zeros, never NaN.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/limits.h"
#include "focal/parallel.h"
#include "focal/status.h"

namespace focal {

// Storage of K and V; the math is f32. kI8: symmetric int8, element d of key (or value)
// j of kv head g in batch row b is q[d] * scale with one f32 scale per (b, j, g), read
// from k_scales (v_scales) at b * batch + j * seq + g * head of k_scale_strides
// (v_scale_strides): a quarter of f32's bytes plus one float per head_dim elements.
enum class KvType : uint8_t { kF32 = 0, kF16 = 1, kI8 = 2 };

struct AttentionStrides {  // in elements; dim is contiguous
  size_t batch = 0;
  size_t seq = 0;
  size_t head = 0;
};

struct AttentionMask {
  // Causal: query i sees keys j <= i + causal_offset. With a cached prefix of P keys
  // and q_len new queries, causal_offset = kv_len - q_len.
  bool causal = false;
  int64_t causal_offset = 0;
  // Sliding window (needs causal): query i also sees only keys j > i + causal_offset - window.
  int64_t window = 0;  // 0: no window
  // Key padding: keys j >= key_lengths[b] are ignored. Null: all kv_len keys are valid.
  const int32_t* key_lengths = nullptr;
  // Additive bias added to the scaled scores, [.., q, k] with the k axis contiguous:
  // bias[b * batch_stride + h * head_stride + i * q_stride + j]. A stride of 0 broadcasts
  // along that axis; a q stride of -1 makes the bias a function of j - i, so one row per
  // head of q_len + kv_len - 1 values, pointed at its entry for (i, j) = (0, 0), holds a
  // relative position bias (T5's) whole.
  const float* bias = nullptr;
  size_t bias_batch_stride = 0;
  size_t bias_head_stride = 0;
  ptrdiff_t bias_q_stride = 0;
};

struct AttentionParams {
  size_t batch = 1;
  size_t heads = 1;
  size_t kv_heads = 1;  // divides heads
  size_t q_len = 1;
  size_t kv_len = 1;
  size_t head_dim = 1;  // 1 to 256
  float scale = 0.0f;   // 0: 1/sqrt(head_dim)
  AttentionMask mask;
  KvType kv_type = KvType::kF32;

  const float* q = nullptr;
  AttentionStrides q_strides;
  const void* k = nullptr;  // float, uint16_t (IEEE half) or int8_t per kv_type
  AttentionStrides k_strides;
  const void* v = nullptr;
  AttentionStrides v_strides;
  const float* k_scales = nullptr;  // kI8 only (see KvType): one per key and kv head
  AttentionStrides k_scale_strides;
  const float* v_scales = nullptr;
  AttentionStrides v_scale_strides;
  float* out = nullptr;
  AttentionStrides out_strides;

  // Inspection: when non-null, also writes the softmax weights of the heads whose bit
  // is set in weights_heads (bit h for head h, heads < 64) to
  // weights[((b * heads + h) * q_len + i) * kv_len + j]; other heads' rows are untouched.
  float* weights = nullptr;
  uint64_t weights_heads = ~uint64_t(0);
};

// Scratch the kernel needs for these params with this many workers (data pointers are
// not needed yet); 0 when the sizes or options are invalid.
size_t attention_workspace_bytes(const AttentionParams& params, int workers);

// Checks params (sizes, strides, pointers, mask) and computes attention with the best
// kernel for this CPU, splitting work over `parallel` when given. Allocates nothing.
Status attention(const AttentionParams& params, void* workspace, size_t workspace_bytes,
                 ParallelFor* parallel = nullptr);

// The scalar reference twin, in f32 with the straightforward two-pass softmax. Needs no
// workspace. Same contract as attention().
Status attention_reference(const AttentionParams& params);

// Which implementation attention() runs here: "avx512", "avx2", "sse2", "neon64",
// "neon", "scalar".
const char* attention_isa();

}  // namespace focal
