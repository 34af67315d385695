// The tiny test model: every op of the engine's first slice, small enough for a
// Cortex-M and built through the same ModelWriter the converter uses. Its expected
// outputs come from an independent double-precision forward pass written here.
//
//   x [batch, seq, 8] -> q = x Wq^T + bq [.., 8]; k, v = x Wk^T + bk, x Wv^T + bv [.., 4]
//   a = causal attention(q, k, v; 2 query heads sharing 1 kv head, head_dim 4)
//   r = x + (a Wo^T + bo); n = layernorm(r); h = gelu(n W1^T + b1) [.., 16]
//   logits = h W2^T + b2 [.., 5]; probs = softmax(logits)
#pragma once

#include <cstdint>
#include <vector>

#include "model_writer.h"
#include "support/random_values.h"

namespace focal {
namespace testing {

struct TinyConfig {
  int64_t max_batch = 2;
  int64_t max_seq = 8;
  uint32_t seed = 1;
  DType weight_type = DType::kF32;  // how the dense weights are stored (packed)
  // With weight_type kI8: the dense weights in the int8-dot layout, run with int8
  // activations (ModelWriter::set_int8_activations).
  bool int8_activations = false;
};

constexpr int kTinyModelWidth = 8;

// The tiny model's input shape [batch, seq, kTinyModelWidth].
inline Shape tiny_input_shape(int64_t batch, int64_t seq) {
  Shape shape;
  shape.rank = 3;
  shape.dims[0] = batch;
  shape.dims[1] = seq;
  shape.dims[2] = kTinyModelWidth;
  return shape;
}
constexpr int kTinyClasses = 5;

struct TinyTensors {
  int x, logits, probs;  // tensor indices in the writer
};

// Adds the tiny model's tensors and ops to `writer` (no self-test yet).
TinyTensors add_tiny_model(ModelWriter& writer, const TinyConfig& config);

struct TinyOutputs {
  std::vector<double> logits;  // [batch, seq, 5]
  std::vector<double> probs;
};

// The double-precision forward pass of the tiny model for x [batch, seq, 8].
TinyOutputs tiny_forward_double(const TinyConfig& config, const std::vector<float>& x,
                                int64_t batch, int64_t seq);

// The tiny model with one self-test case (batch 2, seq 5) whose expected outputs come
// from tiny_forward_double, serialized.
std::vector<uint8_t> build_tiny_model(const TinyConfig& config = TinyConfig());

}  // namespace testing
}  // namespace focal
