// Calibration inputs for the int8 accuracy measurement (`focal convert --calibration DIR`):
// every DIR/*.json file, in name order, is one case, a JSON object with one nested array
// per model input, e.g. {"input_ids": [[464, 2068, 7586]], "attention_mask": [[1, 1, 1]]}.
// Nesting gives the shape; an input of shape [batch, seq] may be given as one flat list
// (batch 1). Ids and masks must be whole numbers; every model input must be given.
#pragma once

#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "reference/evaluator.h"

namespace focal {
namespace convert {

// One entry per case, each one Value per model input in the model's input order.
Result<std::vector<std::vector<reference::Value>>> read_calibration_cases(const std::string& dir, const Model& model);

}  // namespace convert
}  // namespace focal
