// "repeat" blocks of a spec's layers, expanded with {i} and {i+1} replaced by the copy's
// number in every string, within a budget so that a few bytes of spec cannot ask for
// unbounded memory.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "focal/status.h"

namespace focal {
namespace convert {
namespace spec {

// Appends `layers`, expanded, to `flat`; an error past the budget.
Status expand_layers(const nlohmann::json& layers, std::vector<nlohmann::json>* flat);

}  // namespace spec
}  // namespace convert
}  // namespace focal
