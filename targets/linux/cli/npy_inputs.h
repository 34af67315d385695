// Model inputs from .npy files, shared by the commands that run a model (run, attention).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "focal/session.h"

namespace focal {
namespace cli {

// Sets each {input name, .npy path}: float arrays feed f32 inputs, integer arrays i32
// ones; symbolic dims take the arrays' sizes.
Status set_npy_inputs(Session& session, const std::vector<std::pair<std::string, std::string>>& inputs);

}  // namespace cli
}  // namespace focal
