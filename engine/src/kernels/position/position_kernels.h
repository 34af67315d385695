// Position encodings: rotary position embedding (RoPE) applied to query/key heads, and
// the sinusoidal encoding of the original Transformer, as a kernel table per
// instruction set (its kernel set, dispatch/kernel_set_instance.cpp, written once in position_simd.hpp) and the
// scalar reference twins (reference.cpp). Kernels trust their arguments (checked by
// focal::rope / focal::sinusoidal_encoding in pointwise_dispatch.h) and never allocate.
//
// Angles are f32, as PyTorch and TensorFlow compute them: angle = float(position) *
// inv_frequency with one f32 rounding, then sin and cos of that f32 angle (xsimd's, or
// std::'s, within a few ulp; large angles are reduced exactly). So positions must be
// below 2^24 to be exact, and the angle itself carries a rounding error of up to
// |angle| * 2^-24 (6e-5 rad at position 1000 and frequency 1): the same error the
// frameworks' own f32 tables carry, so results match them rather than exact math.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "focal/internal/position_reference.h"  // SinusoidParams, sinusoid_reference

namespace focal {
namespace kernels {

enum class RopeLayout {
  // rotate_half (GPT-NeoX, Llama, Mistral, Qwen, Gemma): dim i pairs with i + r/2.
  kHalfSplit,
  // Interleaved pairs (GPT-J, the original RoFormer, ChatGLM): dim 2i pairs with 2i + 1.
  kInterleaved,
};

// x and y are [batch, seq, heads, head_dim] addressed with strides in floats (0: dense).
// The first rotary_dim dims of each head are rotated by position-dependent angles; the
// others (GPT-J's rotary_dim 64 of 256, GPT-NeoX's rotary_pct) are copied (or left, in
// place). Pair k (k < rotary_dim / 2) at position p turns by p * inv_frequency(k):
//   half-split:  y[k] = x[k] cos - x[k + r/2] sin,  y[k + r/2] = x[k + r/2] cos + x[k] sin
//   interleaved: y[2k] = x[2k] cos - x[2k+1] sin,   y[2k+1] = x[2k+1] cos + x[2k] sin
struct RopeParams {
  size_t batch = 1, seq = 0, heads = 1, head_dim = 0;
  size_t rotary_dim = 0;   // even, <= head_dim; 0: head_dim
  float theta = 10000.0f;  // the base (Llama 3: 500000)
  // rotary_dim / 2 inverse frequencies replacing theta's (a stored table: Llama 3's
  // rope_scaling); null: rope_inv_frequency(theta, k, rotary_dim).
  const float* inv_frequency = nullptr;
  RopeLayout layout = RopeLayout::kHalfSplit;
  // Position of token (b, s): positions[b * seq + s] when given (ragged batches,
  // packed sequences), else position_offset + s (decode with a KV cache of that length).
  int64_t position_offset = 0;
  const int32_t* positions = nullptr;
  size_t batch_stride = 0, seq_stride = 0, head_stride = 0;  // floats; 0: dense
  const float* x = nullptr;
  float* y = nullptr;  // may equal x (in place); same strides as x
};

// Helpers shared by the reference and the kernels, so both use the same f32 values. In
// an unnamed namespace: per-ISA translation units must not share (and so possibly merge)
// float code compiled with their flags.
namespace {

// PyTorch's (HF Llama, GPT-NeoX) inv_freq = 1.0 / (theta ** (arange(0, r, 2).float() / r)),
// step by step in f32: the exponent 2k/r rounded to f32, powf, then the reciprocal.
// Not exp(-ln(theta) * 2k/r): gemma.cpp notes that form "changes results noticeably".
inline float rope_inv_frequency(float theta, size_t k, size_t rotary_dim) {
  const float exponent = static_cast<float>(2 * k) / static_cast<float>(rotary_dim);
  return 1.0f / std::pow(theta, exponent);
}

// Pair k's inverse frequency: the stored table's, else theta's.
inline float rope_pair_frequency(const RopeParams& p, size_t k, size_t rotary_dim) {
  return p.inv_frequency != nullptr ? p.inv_frequency[k] : rope_inv_frequency(p.theta, k, rotary_dim);
}

inline size_t rope_rotary_dim(const RopeParams& p) {
  return p.rotary_dim != 0 ? p.rotary_dim : p.head_dim;
}

inline float rope_position(const RopeParams& p, size_t b, size_t s) {
  return p.positions != nullptr ? static_cast<float>(p.positions[b * p.seq + s])
                                : static_cast<float>(p.position_offset + static_cast<int64_t>(s));
}

struct RopeStrides {
  size_t batch, seq, head;
};
inline RopeStrides rope_strides(const RopeParams& p) {
  RopeStrides s;
  s.head = p.head_stride != 0 ? p.head_stride : p.head_dim;
  s.seq = p.seq_stride != 0 ? p.seq_stride : p.heads * s.head;
  s.batch = p.batch_stride != 0 ? p.batch_stride : p.seq * s.seq;
  return s;
}

// The inverse timescale of frequency i < dim/2, computed in double and rounded once (the
// frameworks compute it in f32 with exp, within 1 or 2 ulp of this).
inline float sinusoid_inv_timescale(const SinusoidParams& p, size_t i) {
  const size_t half = p.dim / 2;
  const size_t steps = p.spacing == TimescaleSpacing::kVaswani ? half : (half > 1 ? half - 1 : 1);
  const double log_increment =
      std::log(static_cast<double>(p.max_timescale) / static_cast<double>(p.min_timescale)) /
      static_cast<double>(steps);
  return static_cast<float>(std::exp(-static_cast<double>(i) * log_increment) /
                            static_cast<double>(p.min_timescale));
}

inline float sinusoid_position(const SinusoidParams& p, size_t row) {
  return static_cast<float>(p.position_offset + static_cast<int64_t>(row));
}

}  // namespace

void rope_reference(const RopeParams& p);

using RopeFn = void (*)(const RopeParams& p);
using SinusoidFn = void (*)(const SinusoidParams& p);

struct PositionKernelTable {
  const char* isa;
  RopeFn rope;
  SinusoidFn sinusoid;
};

}  // namespace kernels
}  // namespace focal
