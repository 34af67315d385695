// Activation ranges over calibration cases (activation_ranges.h).
#include "quantize/activation_ranges.h"

#include "assign_or_return.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace quantize {

Result<std::vector<TensorRange>> measure_ranges(const Model& model,
                                                const std::vector<std::vector<reference::Value>>& cases) {
  FOCAL_ASSIGN_OR_RETURN(reference::Evaluator evaluator, reference::Evaluator::create(model));
  std::vector<TensorRange> ranges(static_cast<size_t>(model.tensor_count()));
  for (const std::vector<reference::Value>& inputs : cases) {
    evaluator.reset_state();
    FOCAL_RETURN_IF_ERROR(reference::evaluate_outputs(evaluator, inputs).status());
    for (int t = 0; t < model.tensor_count(); ++t) {
      if (model.tensor(t).role == TensorRole::kConstant) continue;
      TensorRange& r = ranges[static_cast<size_t>(t)];
      for (double v : evaluator.value(t).values) {
        r.lo = v < r.lo ? v : r.lo;
        r.hi = v > r.hi ? v : r.hi;
      }
    }
  }
  return ranges;
}

}  // namespace quantize
}  // namespace focal
