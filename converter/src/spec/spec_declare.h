// What a spec declares before its layers: symbols (planned maxima), inputs (the model's
// or a stage's), state tensors kept across runs, and hyperparameters stored in the
// model's metadata. Reads the JSON through calls that may throw (spec/spec_builder.cpp
// turns those into a Status).
#pragma once

#include <nlohmann/json.hpp>

#include "spec/spec_context.h"

namespace focal {
namespace convert {
namespace spec {

// "batch" and "seq" always (--max-batch / --max-seq override the spec's), then any other
// named in "symbols".
void declare_symbols(Context& c, const nlohmann::json& spec);
// Each of `inputs` [{"name", "dtype": f32 | i32, "shape": [...]}] as a model input.
Status declare_inputs(Context& c, const nlohmann::json& inputs);
// The spec's "state" list, of the inputs' form ("repeat" blocks of states expand).
Status declare_states(Context& c, const nlohmann::json& spec);
// "hyperparameters": {"bos_id": 1, ...}, numbers or strings, into the model's metadata.
Status declare_hyperparameters(Context& c, const nlohmann::json& spec);

}  // namespace spec
}  // namespace convert
}  // namespace focal
