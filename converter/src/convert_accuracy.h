// `focal convert --activations int8`: the options' checks, the measurement pass over a
// weight-only int8 draft of the model (int8_accuracy.h) and the layers it keeps.
#pragma once

#include <set>
#include <string>

#include "convert.h"
#include "model_writer.h"

namespace focal {
namespace convert {

// The self-test bound (atol = rtol) for expected outputs computed with int8 activations.
// The reference quantizes each dense layer's rows from double-precision values, the
// engine from its f32 ones: a value within an f32 rounding of a half step rounds to
// neighbouring integers in the two, and that row's outputs then differ by one step of
// its scale times the weight (about 1e-3 of the output for K = 128), which later layers
// carry on. Measured worst element, as a share of this bound: see convert.cpp.
constexpr float kInt8ActivationTolerance = 1e-2f;

// --activations int8 needs --dtype int8; --keep-f32, its threshold and --calibration need
// --activations int8.
Status check_int8_options(const ConvertOptions& options);

// With the model built in `writer` in weight-only int8: writes a draft (the constants
// move into it), runs the measurement on the calibration cases (or the generated
// self-test inputs) and marks the layers --keep-f32 keeps.
Result<AccuracyReport> measure_layers(const ConvertOptions& options, ModelWriter& writer);

// The weight names of the kept layers (ModelWriter::keep_weight_only).
std::set<std::string> kept_weights(const AccuracyReport& report);

}  // namespace convert
}  // namespace focal
