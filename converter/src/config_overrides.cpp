#include "config_overrides.h"

#include "json/json_file.h"

namespace focal {
namespace convert {
namespace {

nlohmann::json parsed_value(const std::string& text) {
  Result<nlohmann::json> value = parse_json(text.data(), text.size(), "--set value");
  if (value.ok() && (value->is_number() || value->is_boolean() || value->is_null())) return value.value();
  return text;  // names such as hidden_act=gelu need no JSON quotes
}

}  // namespace

Status apply_overrides(const std::vector<std::string>& settings, bool spec, nlohmann::json* config) {
  for (const std::string& setting : settings) {
    const size_t equals = setting.find('=');
    if (equals == std::string::npos || equals == 0) {
      return Status::error(StatusCode::kInvalidArgument,
                           "--set '%s': expected NAME=VALUE, e.g. --set num_attention_heads=12", setting.c_str());
    }
    nlohmann::json& target = spec ? (*config)["symbols"] : *config;
    if (target.is_null()) target = nlohmann::json::object();  // a spec without symbols
    if (!target.is_object()) {
      return Status::error(StatusCode::kInvalidArgument, "--set '%s': the spec's \"symbols\" is not an object",
                           setting.c_str());
    }
    target[setting.substr(0, equals)] = parsed_value(setting.substr(equals + 1));
  }
  return Status();
}

}  // namespace convert
}  // namespace focal
