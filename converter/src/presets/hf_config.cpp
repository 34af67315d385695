#include "presets/hf_config.h"

#include <cstdlib>

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

bool has_key(const nlohmann::json& config, const char* key) {
  return config.is_object() && config.contains(key) && !config.at(key).is_null();
}

Status disagrees(const char* key, int64_t stated, const std::string& tensor, const std::vector<int64_t>& shape) {
  return config_refused(std::string("config: '") + key + "' is " + std::to_string(stated) + " but tensor '" +
                        tensor + "' has shape " + shape_text(shape) + "; drop the key (the tensors state it) or fix it");
}

Status check_stated(const nlohmann::json& config, const char* key, int64_t found, const std::string& tensor,
                    const std::vector<int64_t>& shape) {
  if (!has_key(config, key)) return Status();
  FOCAL_ASSIGN_OR_RETURN(const int64_t stated, read_json_integer(config.at(key), key));
  return stated == found ? Status() : disagrees(key, stated, tensor, shape);
}

}  // namespace

Result<int64_t> size_from_tensor(const WeightSource& weights, const nlohmann::json& config, const char* key,
                                 const std::string& tensor, size_t axis) {
  const std::vector<int64_t>* shape = weights.shape_of(tensor);
  if (shape == nullptr && has_key(config, key)) return read_json_integer(config.at(key), key);  // random weights
  if (shape == nullptr) return weights.missing(tensor);
  if (shape->size() <= axis) {
    return Status::error(StatusCode::kInvalidArgument, "tensor '%s' has shape %s: expected at least %zu dims",
                         tensor.c_str(), shape_text(*shape).c_str(), axis + 1);
  }
  const int64_t found = (*shape)[axis];
  FOCAL_RETURN_IF_ERROR(check_stated(config, key, found, weights.stored_name(tensor), *shape));
  return found;
}

int64_t count_blocks(const WeightSource& weights, const std::string& before, const std::string& after) {
  int64_t n = 0;
  while (weights.has(before + std::to_string(n) + after)) ++n;
  return n;
}

Result<int64_t> layers_from_tensors(const WeightSource& weights, const nlohmann::json& config, const char* key,
                                    const std::string& before, const std::string& after) {
  const int64_t layers = count_blocks(weights, before, after);
  const std::string first = before + "0" + after;
  if (layers == 0 && has_key(config, key)) return read_json_integer(config.at(key), key);  // random weights
  if (layers == 0) return weights.missing(first);
  if (!has_key(config, key)) return layers;
  FOCAL_ASSIGN_OR_RETURN(const int64_t stated, read_json_integer(config.at(key), key));
  if (stated == layers) return layers;
  const std::string pattern = weights.stored_name(first);
  return config_refused(std::string("config: '") + key + "' is " + std::to_string(stated) + " but the checkpoint holds " +
                        std::to_string(layers) + " blocks like '" + pattern +
                        "'; drop the key (the tensors state it) or fix it");
}

Result<std::vector<std::string>> hf_label_names(const nlohmann::json& config) {
  if (!config.is_object() || !config.contains("id2label") || config.at("id2label").is_null()) {
    return std::vector<std::string>{};
  }
  const nlohmann::json& map = config.at("id2label");
  if (!map.is_object()) return config_refused("config: 'id2label' must be an object {\"0\": \"NAME\", ...}");
  std::vector<std::string> names(map.size());
  std::vector<bool> seen(map.size(), false);
  for (const auto& [key, value] : map.items()) {
    char* end = nullptr;
    const unsigned long long id = std::strtoull(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || id >= names.size() || seen[id] || !value.is_string()) {
      return config_refused("config: 'id2label' must map the ids 0 to " + std::to_string(names.size() - 1) +
                            " to names, each once; found \"" + key + "\": " + value.dump());
    }
    seen[id] = true;
    names[id] = value.get<std::string>();
  }
  return names;
}

Status check_label_count(const nlohmann::json& config, const std::vector<std::string>& names,
                         const std::string& head, int64_t rows) {
  if (!names.empty()) {
    if (static_cast<int64_t>(names.size()) == rows) return Status();
    return config_refused("config: 'id2label' names " + std::to_string(names.size()) + " labels but '" + head + "' has " +
                          std::to_string(rows) + " rows (one per label); fix id2label or the checkpoint");
  }
  FOCAL_ASSIGN_OR_RETURN(const int64_t stated, config_int(config, "num_labels", rows));
  if (stated == rows) return Status();
  return config_refused("config: 'num_labels' is " + std::to_string(stated) + " but '" + head + "' has " +
                        std::to_string(rows) + " rows (one per label); drop num_labels or fix it");
}

std::string prefix_of(const WeightSource& weights, const std::string& anchor) {
  for (const std::string& name : weights.names()) {
    if (name == anchor) return "";
    if (name.size() > anchor.size() && name.compare(name.size() - anchor.size(), anchor.size(), anchor) == 0 &&
        name[name.size() - anchor.size() - 1] == '.') {
      return name.substr(0, name.size() - anchor.size());
    }
  }
  return "";
}

Result<int64_t> head_count(const nlohmann::json& config, const char* key, int64_t fallback,
                           const PresetOptions& options) {
  if (!has_key(config, key) && options.warnings != nullptr) {
    options.warnings->push_back(std::string("the config lacks '") + key + "': took transformers' default " +
                                std::to_string(fallback) + "; if the model has another, pass --set " + key + "=N");
  }
  return config_int(config, key, fallback);
}

void store_label_names(ModelWriter& writer, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i) writer.add_hyperparameter("label." + std::to_string(i), names[i]);
}

}  // namespace convert
}  // namespace focal
