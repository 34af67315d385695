// Calibration for static int8 activations (issue 36): the range each activation takes
// when the model runs in double precision (reference/evaluator.h) on the calibration
// cases, from which `focal convert --quantize static` chooses each int8 activation's
// scale and zero point (static_int8.h, activation_params).
#pragma once

#include <limits>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "reference/evaluator.h"

namespace focal {
namespace quantize {

struct TensorRange {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

// One range per model tensor (constants keep the empty range): every element every case
// gave it, padded positions included (their zeros are in every range anyway).
Result<std::vector<TensorRange>> measure_ranges(const Model& model,
                                                const std::vector<std::vector<reference::Value>>& cases);

}  // namespace quantize
}  // namespace focal
