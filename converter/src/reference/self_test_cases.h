// Self-test cases as the reference evaluator sees them, fed exactly as the engine's
// runner (engine/src/apps/self_test.cpp) feeds a session: each case starts a new sequence
// (reset_state), sets its inputs, runs every op (all stages) once, and reads the outputs.
#pragma once

#include <vector>

#include "focal/model.h"
#include "focal/status.h"
#include "reference/evaluator.h"

namespace focal {
namespace reference {

// One case: inputs and expected outputs (model tensor indices, values in double).
struct SelfTestValues {
  std::vector<Value> inputs;
  std::vector<Value> expected;
  float atol = 0.0f, rtol = 0.0f;
};

// The cases stored in the model (inputs f32 or i32, expected outputs f32).
std::vector<SelfTestValues> stored_self_tests(const Model& model);

// Runs one case's inputs through `evaluator` and returns the value of every model
// output of f32 dtype, in the model's output order.
Result<std::vector<Value>> evaluate_outputs(Evaluator& evaluator, const std::vector<Value>& inputs);

}  // namespace reference
}  // namespace focal
