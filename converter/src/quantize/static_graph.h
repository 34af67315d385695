// `focal convert --quantize static` (issue 36): a model built with f32 weights and f32
// activations (the draft) rewritten on static int8 activations, from the activation
// ranges its calibration gave (activation_ranges.h).
//
// Which tensors become int8: an activation (not a model output) written by an Embedding,
// or by a Recurrent, AttentionPool or Dense op whose input is int8, and read only as the
// input (slot 0) of Recurrent, AttentionPool or Dense ops. Those ops then run their int8
// forms (schema/focal.fbs): Embedding with an int8 table (a scale per row), LSTM and GRU
// layers with int8 weights per gate row and TFLite's integer LSTM formats (int16 gates;
// the LSTM's cell int16 with 11 fractional bits, |c| < 16; the GRU's h int16 Q0.15), the
// attention pool with int8 W and v, Dense with int8 weights per output and int8 or f32
// (dequantized) outputs. Softmax stays f32 (on f32 logits). Any other op kind, a
// recurrent layer with initial or final states, a Dense with an activation other than
// None or ReLU, and a recurrent or pooling output that is not read as int8 are refused,
// naming the op: the families this supports are the Embedding -> (Bi)LSTM or (Bi)GRU,
// one or more stacked -> AttentionPool -> Dense -> Softmax classifiers.
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
Status write_static_int8(const Model& draft, const std::vector<TensorRange>& ranges, const std::string& calibration,
                         ModelWriter* out);

}  // namespace quantize
}  // namespace focal
