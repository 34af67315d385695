#include "hf/generation_config.h"

#include "assign_or_return.h"
#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

const char* const kIdKeys[] = {"bos_token_id", "eos_token_id", "pad_token_id", "decoder_start_token_id"};

// The id under `key` in generation_config.json, else config.json; null when neither has one.
const nlohmann::json* id_value(const nlohmann::json& generation, const nlohmann::json& config, const char* key) {
  for (const nlohmann::json* source : {&generation, &config}) {
    if (source->is_object() && source->contains(key) && !source->at(key).is_null()) return &source->at(key);
  }
  return nullptr;
}

}  // namespace

Result<Hyperparameters> generation_ids(const nlohmann::json& generation, const nlohmann::json& config) {
  Hyperparameters ids;
  for (const char* key : kIdKeys) {
    const nlohmann::json* value = id_value(generation, config, key);
    if (value == nullptr) continue;
    if (value->is_array() && value->empty()) continue;
    if (value->is_array() && value->size() > 1) {  // eos_token_id [a, b, c]: generation stops at any
      std::string list;
      for (const nlohmann::json& item : *value) {
        const Result<int64_t> parsed = read_json_integer(item, key, 0, INT32_MAX);
        if (!parsed.ok()) {
          return Status::error(StatusCode::kInvalidArgument, "generation_config.json: %s", parsed.status().message());
        }
        list += (list.empty() ? "" : ",") + std::to_string(parsed.value());
      }
      ids.emplace_back(std::string("generation.") + key + "s", list);  // generation.eos_token_ids
    }
    const nlohmann::json& id = value->is_array() ? value->at(0) : *value;
    const Result<int64_t> parsed = read_json_integer(id, key, 0, INT32_MAX);  // a token id
    if (!parsed.ok()) {
      return Status::error(StatusCode::kInvalidArgument, "generation_config.json: %s", parsed.status().message());
    }
    ids.emplace_back(std::string("generation.") + key, std::to_string(parsed.value()));
  }
  return ids;
}

}  // namespace convert
}  // namespace focal
