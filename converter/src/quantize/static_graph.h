// `focal convert --quantize static` (issue 36): a model built with f32 weights and f32
// activations (the draft) rewritten on static int8 activations, from the activation
// ranges its calibration gave (activation_ranges.h).
//
// Which tensors become int8: an activation written by an Embedding, or by a Recurrent,
// AttentionPool, Dense, LayerNorm, MultiHeadAttention or Pool op whose input is int8 (an
// Add whose two inputs are), and read only as such an op's input (slot 0; an Add's slots
// 0 and 1). A model output that such an op (not a Dense, which writes f32 itself) writes
// and int8 ops read is written as an int8 twin, `<name>.int8`, which a Scale op then
// dequantizes into the f32 output. Those ops run their int8 forms (schema/focal.fbs):
// Embedding with an int8 table (a scale per row) and learned positions, LSTM and GRU
// layers with int8 weights per gate row and TFLite's integer LSTM formats (int16 gates;
// the LSTM's cell int16 with 11 fractional bits, |c| < 16; the GRU's h int16 Q0.15), the
// attention pool with int8 W and v, Dense with int8 weights per output and int8 or f32
// (dequantized) outputs and any activation (ReLU exact, others a 256-entry table),
// LayerNorm and Add, self-attention (static_encoder_ops.cpp), and CLS, last or max pooling.
// Softmax stays f32 (on f32 logits). Any other op kind, a recurrent layer with initial or
// final states, attention with states, memory or RoPE, mean pooling, and an output that
// is not read as int8 are refused, naming the op: the families this supports are the
// Embedding -> (Bi)LSTM or (Bi)GRU, one or more stacked -> AttentionPool -> Dense ->
// Softmax classifiers and the post- or pre-LN transformer encoders.
#pragma once

#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "model_writer.h"
#include "quantize/activation_ranges.h"

namespace focal {
namespace quantize {

// Writes the int8 model into `out` (empty): symbols, inputs, outputs, graph, metadata and
// hyperparameters of `draft`, plus the hyperparameter "quantization". No self-test (the
// caller adds the int8 model's own). `calibration` describes the cases for the metadata.
Status write_static_int8(const Model& draft, const Ranges& ranges, const std::string& calibration,
                         ModelWriter* out);

}  // namespace quantize
}  // namespace focal
