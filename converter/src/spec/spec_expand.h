// "repeat" blocks of a spec's lists (layers, a stage's layers, states), expanded with
// {i}, {i+1} and {i-1} replaced by the copy's number in every string, within one budget
// for the whole spec so that a few bytes of spec cannot ask for unbounded memory.
#pragma once

#include <cstddef>
#include <vector>

#include <nlohmann/json.hpp>

#include "focal/status.h"

namespace focal {
namespace convert {
namespace spec {

class Expander {
 public:
  Expander();
  // Appends `list`, expanded, to `flat`: an item {"repeat": N, `key`: [...]} becomes N
  // copies of its items (nested repeats expand too); an error past the budget.
  Status expand(const nlohmann::json& list, const char* key, std::vector<nlohmann::json>* flat);

 private:
  size_t values_left_;
  size_t items_ = 0;
};

}  // namespace spec
}  // namespace convert
}  // namespace focal
