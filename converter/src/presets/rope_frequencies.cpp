#include "presets/rope_frequencies.h"

#include <cmath>

namespace focal {
namespace convert {
namespace {

// The rope settings object: rope_scaling (transformers up to 4.x) or rope_parameters
// (newer, which also carries rope_theta); `*rope` null when the config has neither.
// `*key` names the one found, for messages.
Status rope_settings(const nlohmann::json& j, const nlohmann::json** rope, std::string* key) {
  *rope = nullptr;
  for (const char* each : {"rope_parameters", "rope_scaling"}) {
    if (!j.contains(each) || j.at(each).is_null()) continue;
    if (!j.at(each).is_object()) return config_refused(std::string("'") + each + "' must be an object");
    *key = each;
    *rope = &j.at(each);
    return Status();
  }
  return Status();
}

// rope_type, or the older "type" key rope_scaling used.
Result<std::string> rope_type(const nlohmann::json& rope) {
  FOCAL_ASSIGN_OR_RETURN(const std::string type, config_string(rope, "type", "default"));
  return config_string(rope, "rope_type", type);
}

// transformers' default inv_freq in f32 (the engine's rope_inv_frequency), k < rotary / 2.
double default_inv_freq(float theta, int64_t k, int64_t rotary) {
  const float exponent = static_cast<float>(2 * k) / static_cast<float>(rotary);
  return static_cast<double>(1.0f / std::pow(theta, exponent));
}

struct Llama3Scaling {
  double factor = 0.0, low_freq_factor = 0.0, high_freq_factor = 0.0, old_context = 0.0;
};

Result<Llama3Scaling> read_llama3_scaling(const nlohmann::json& rope, const std::string& key) {
  Llama3Scaling s;
  FOCAL_ASSIGN_OR_RETURN(s.factor, config_number(rope, "factor", 0.0));
  FOCAL_ASSIGN_OR_RETURN(s.low_freq_factor, config_number(rope, "low_freq_factor", 0.0));
  FOCAL_ASSIGN_OR_RETURN(s.high_freq_factor, config_number(rope, "high_freq_factor", 0.0));
  FOCAL_ASSIGN_OR_RETURN(s.old_context, config_number(rope, "original_max_position_embeddings", 0.0));
  if (!(s.factor > 0.0) || !(s.low_freq_factor > 0.0) || !(s.old_context > 0.0) ||
      !(s.high_freq_factor > s.low_freq_factor) || !std::isfinite(s.factor + s.high_freq_factor + s.old_context)) {
    return config_refused(key + " llama3 needs factor > 0, 0 < low_freq_factor < high_freq_factor and "
                          "original_max_position_embeddings > 0");
  }
  return s;
}

// _compute_llama3_parameters (transformers modeling_rope_utils.py, 4.46): wavelengths
// longer than old_context / low_freq_factor are slowed by `factor`, shorter than
// old_context / high_freq_factor kept, and those between blended smoothly.
double llama3_inv_freq(double inv_freq, const Llama3Scaling& s) {
  constexpr double kTwoPi = 6.283185307179586;
  const double wavelen = kTwoPi / inv_freq;
  const double low_freq_wavelen = s.old_context / s.low_freq_factor;
  const double high_freq_wavelen = s.old_context / s.high_freq_factor;
  if (wavelen > low_freq_wavelen) return inv_freq / s.factor;
  if (wavelen < high_freq_wavelen) return inv_freq;
  const double smooth = (s.old_context / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
  return (1.0 - smooth) * inv_freq / s.factor + smooth * inv_freq;
}

}  // namespace

Result<RopeFrequencies> read_rope_frequencies(const nlohmann::json& config, double default_theta,
                                              int64_t rotary_dim) {
  RopeFrequencies r;
  FOCAL_ASSIGN_OR_RETURN(r.theta, config_float(config, "rope_theta", default_theta));
  std::string key;
  const nlohmann::json* rope = nullptr;
  FOCAL_RETURN_IF_ERROR(rope_settings(config, &rope, &key));
  if (rope == nullptr) return r;
  FOCAL_ASSIGN_OR_RETURN(r.theta, config_float(*rope, "rope_theta", r.theta));
  FOCAL_ASSIGN_OR_RETURN(const std::string type, rope_type(*rope));
  if (type == "default") return r;
  if (type != "llama3") {
    return config_refused(key + " rope_type " + type + " is not supported (default, llama3)");
  }
  FOCAL_ASSIGN_OR_RETURN(const Llama3Scaling scaling, read_llama3_scaling(*rope, key));
  for (int64_t k = 0; k < rotary_dim / 2; ++k) {
    r.inv_freq.push_back(static_cast<float>(llama3_inv_freq(default_inv_freq(r.theta, k, rotary_dim), scaling)));
  }
  return r;
}

}  // namespace convert
}  // namespace focal
