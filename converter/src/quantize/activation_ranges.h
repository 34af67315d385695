// Calibration for static int8 activations (issue 36): the range each activation takes
// when the model runs in double precision (reference/evaluator.h) on the calibration
// cases, from which `focal convert --quantize static` chooses each int8 activation's
// scale and zero point (static_int8.h, activation_params).
#pragma once

#include <limits>
#include <map>
#include <string>
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

// The rows a weight multiplied and the products it gave (bias included, before any fused
// activation): the ranges of what an op keeps inside (an attention's q, k, v and
// context, a dense layer's pre-activation), which have no tensor of their own.
struct ProductRange {
  TensorRange input, output;
};

struct Ranges {
  std::vector<TensorRange> tensors;              // one per model tensor
  std::map<std::string, ProductRange> products;  // by weight tensor name
};

// One range per model tensor (constants keep the empty range) and per weight's products:
// every element every case gave it, padded positions included (their zeros are in every
// range anyway).
Result<Ranges> measure_ranges(const Model& model, const std::vector<std::vector<reference::Value>>& cases);

}  // namespace quantize
}  // namespace focal
