// Model inputs from .npy files, shared by the commands that run a model (run, attention).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "focal/session.h"

namespace focal {
namespace cli {

using NpyInputs = std::vector<std::pair<std::string, std::string>>;

// Adds `--input`'s value NAME=FILE.npy to `inputs`; false when it has no name or no '='.
bool add_input_spec(const std::string& spec, NpyInputs* inputs);
// The usage error for a value add_input_spec refused.
Status bad_input_spec(const std::string& spec);

// Sets each {input name, .npy path}: float arrays feed f32 inputs, integer arrays i32
// ones; symbolic dims take the arrays' sizes.
Status set_npy_inputs(Session& session, const NpyInputs& inputs);

}  // namespace cli
}  // namespace focal
