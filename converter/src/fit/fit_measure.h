// How `--fit` measures one choice (fit.h): converts with its options, then runs the
// result in the engine on the error cases and sizes it against the part.
#pragma once

#include <vector>

#include "convert.h"
#include "fit/fit_report.h"
#include "focal/model.h"
#include "reference/evaluator.h"

namespace focal {
namespace convert {

// One case to measure on: inputs, and the expected value of each checked output (tensor
// indices of the f32 model).
struct ErrorCase {
  std::vector<reference::Value> inputs;
  std::vector<reference::Value> expected;
};

// What every choice is measured against.
struct FitMeasure {
  const Model& f32;  // the f32 conversion: the cases name its tensors
  const std::vector<ErrorCase>& cases;
  const FitBudget& budget;
};

// The f32 conversion's self-test cases, then the --calibration cases (if any) with the
// f32 model's outputs in double precision, over the outputs the self-test checks.
Result<std::vector<ErrorCase>> error_cases(const ConvertOptions& options, const Model& f32, std::string* measured_on);

// Fills `choice`'s sizes, needs, error and fits from a conversion.
Status measure_converted(const Converted& converted, const FitMeasure& measure, FitChoice* choice);

// Converts with `options` (its fit cleared) into `converted` and fills `choice`'s sizes,
// needs, error and fits; a conversion the converter refuses sets choice->unavailable
// and is no error here.
Status convert_and_measure(const ConvertOptions& options, const FitMeasure& measure, FitChoice* choice,
                           Converted* converted);

}  // namespace convert
}  // namespace focal
