// How much int8 activations change each dense layer, measured at conversion so that a
// model does not silently change its answers (`focal convert --activations int8`).
//
// The measurement runs the model once per calibration case through the reference
// evaluator (double precision) with every dense weight in weight-only int8, i.e. on f32
// activations, and at each dense product compares, on the very input rows that layer
// saw, its output with those rows quantized to int8 as the engine would (int8_rows.h)
// against its output on the f32 rows: the same stored int8 weights in both, so the
// error is exactly what int8 activations add and what keeping the layer in weight-only
// int8 removes. Output = the product plus the bias, before any fused activation.
// Cost: one evaluator run per case, plus one more product per dense layer.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "reference/evaluator.h"

namespace focal {
namespace convert {

struct LayerAccuracy {
  std::string weight;          // the dense weight's tensor name (what --keep-f32 names)
  std::string op;              // the first op that multiplies by it
  int64_t rows = 0;            // input rows measured, over every case and call
  double relative_rms = 0.0;   // ||y_int8 - y_f32|| / ||y_f32|| over those rows
  double cosine = 1.0;         // cos(y_int8, y_f32)
  bool kept = false;           // stays weight-only int8 (f32 activations)
  std::string reason;          // why kept: "error above threshold" or "named"
};

struct AccuracyReport {
  std::vector<LayerAccuracy> layers;  // in the order the model first uses them
  std::string inputs;                 // what was measured on ("generated inputs ...", "DIR: N cases")
  bool automatic = false;             // --keep-f32 auto
  double threshold = 0.0;             // relative RMS error above which auto keeps a layer
  int kept() const;
};

// Measures every dense weight of `model` that the evaluator multiplies by on `cases`
// (each: one value per model input, as reference::evaluate_outputs takes them).
Result<std::vector<LayerAccuracy>> measure_int8_accuracy(const Model& model,
                                                         const std::vector<std::vector<reference::Value>>& cases);

// Marks the layers to keep: those `names` lists (the text of --keep-f32, a comma list of
// weight names and/or "auto"; a name that is no measured weight is an error listing
// the valid ones) and, with "auto", those whose error exceeds report->threshold.
Status choose_kept_layers(const std::string& names, AccuracyReport* report);

// The report as a table for the terminal, and as JSON (`focal convert --json`).
std::string accuracy_table(const AccuracyReport& report);
nlohmann::json accuracy_json(const AccuracyReport& report);

}  // namespace convert
}  // namespace focal
