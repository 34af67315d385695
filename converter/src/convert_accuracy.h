// `focal convert --activations int8`: the options' checks, the measurement pass over a
// weight-only int8 draft of the model (int8_accuracy.h) and the layers it keeps.
#pragma once

#include <set>
#include <string>

#include "convert.h"
#include "model_writer.h"

namespace focal {
namespace convert {

// The least self-test bound (atol = rtol) for expected outputs computed with int8
// activations; convert_self_test.cpp widens it to twice the largest change int8
// activations make to an output (why: there). Measured worst element on the test
// encoders and the story model: 4e-5 of it.
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
