// Self-test inputs made up for a model, so every converted file carries a self-test
// even when no reference inputs are given: deterministic (a seeded LCG), batch 1 (or
// `batch`) and a short sequence that fits the plan.
//   - i32 inputs read as token ids (Embedding ids or type ids, also through a Copy):
//     uniform in [0, rows of the table);
//   - other i32 inputs are masks: each row 1s then 0s, most positions valid (the last
//     quarter padded), so the masking paths run too;
//   - f32 inputs: uniform in [-1, 1).
// Symbols: "batch" takes `batch`, every other symbol min(its planned maximum, `seq`).
#pragma once

#include <cstdint>
#include <vector>

#include "focal/model.h"
#include "reference/evaluator.h"

namespace focal {
namespace reference {

struct GeneratedInputOptions {
  uint32_t seed = 20240601;
  int64_t batch = 1;
  int64_t seq = 8;
};

// One Value per model input, in the model's input order.
std::vector<Value> generate_inputs(const Model& model, const GeneratedInputOptions& options = {});

}  // namespace reference
}  // namespace focal
