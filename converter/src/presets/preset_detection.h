// `--preset auto`: the preset a checkpoint belongs to, from config.json (model_type,
// architectures) or else from tensor names that only one preset's checkpoints hold.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "presets/preset.h"
#include "presets/weights.h"

namespace focal {
namespace convert {

struct DetectedPreset {
  const Preset* preset = nullptr;
  std::string reason;  // for the progress line: "config.json model_type 'bert'", "tensor '...'"
};

// An error, when nothing or more than one preset fits, lists the candidates and says to
// pass --preset NAME.
Result<DetectedPreset> detect_preset(const nlohmann::json& config, const WeightSource& weights);
// From config.json alone (a Hugging Face folder, `--hf`): its model_type or
// architectures, else an error naming them and the presets' model types.
Result<DetectedPreset> preset_from_config(const nlohmann::json& config);

}  // namespace convert
}  // namespace focal
