// `--set NAME=VALUE`: hyperparameters given on the command line, merged over config.json
// (or, for a declarative spec, over its "symbols").
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "focal/status.h"

namespace focal {
namespace convert {

// Each "NAME=VALUE" sets config[NAME] (with `spec`, config["symbols"][NAME]): VALUE as a
// JSON number, true, false or null when it parses as one, else as a string. Later ones
// win. A setting without '=' or a name is an error showing the form.
Status apply_overrides(const std::vector<std::string>& settings, bool spec, nlohmann::json* config);

}  // namespace convert
}  // namespace focal
