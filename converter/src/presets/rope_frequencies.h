// RoPE's frequencies as transformers computes them from config.json: the base
// (rope_theta, or rope_parameters' in newer files) and, for rope_scaling (or
// rope_parameters) of rope_type "llama3" (Llama 3.1 / 3.2, SmolLM2-style configs), the
// adjusted inverse frequencies that the engine then reads from a stored table
// (MultiHeadAttentionOptions.rope_inv_freq). Other rope types are refused by name.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "presets/preset.h"

namespace focal {
namespace convert {

struct RopeFrequencies {
  float theta = 10000.0f;
  std::vector<float> inv_freq;  // rotary_dim / 2 entries; empty: theta's plain rotation
};

// `default_theta` when the config states none; rotary_dim is the rotated dims per head.
Result<RopeFrequencies> read_rope_frequencies(const nlohmann::json& config, double default_theta,
                                              int64_t rotary_dim);

}  // namespace convert
}  // namespace focal
