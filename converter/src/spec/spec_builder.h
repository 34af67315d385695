// The declarative model spec (converter/README.md documents it): a JSON file naming
// inputs, layers (each with the checkpoint tensors it takes) and outputs, so any
// architecture made of the engine's ops converts without code. Layers run in order;
// "repeat" blocks expand with {i} replaced by the layer number.
#pragma once

#include <nlohmann/json.hpp>

#include "presets/graph_builder.h"
#include "presets/preset.h"

namespace focal {
namespace convert {

// Builds the graph described by `spec` into `b`. Errors name the layer (its index and
// name) and the problem; checkpoint errors name the tensor as the presets' do.
Status build_from_spec(const nlohmann::json& spec, const PresetOptions& options, GraphBuilder& b);

}  // namespace convert
}  // namespace focal
