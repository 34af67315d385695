// generation_config.json's token ids (bos_token_id, eos_token_id, pad_token_id,
// decoder_start_token_id), stored in the model as hyperparameters generation.NAME so
// `focal generate` takes them as its defaults. As transformers does without the file
// (GenerationConfig.from_model_config), config.json's keys stand in for absent ones.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "focal/status.h"

namespace focal {
namespace convert {

using Hyperparameters = std::vector<std::pair<std::string, std::string>>;

// `generation`: generation_config.json's object ({} without the file). A list of ids
// stores its first as generation.NAME and the whole list as generation.NAMEs ("a,b,c":
// generation.eos_token_ids, at any of which focal generate stops).
Result<Hyperparameters> generation_ids(const nlohmann::json& generation, const nlohmann::json& config);

}  // namespace convert
}  // namespace focal
