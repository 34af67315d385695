#include "hf/sentence_modules.h"

#include "assign_or_return.h"
#include "json/json_file.h"
#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace {

constexpr const char* kModulePrefix = "sentence_transformers.models.";

Status refused(const std::string& file, const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, "%s: %s", file.c_str(), why.c_str());
}

// Pooling's config.json: exactly one mode set, and one the engine pools with.
Status read_pooling(const std::string& path, SentencePooling* pooling) {
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json config, read_json_object(path, "sentence-transformers Pooling config"));
  struct Mode {
    const char* key;
    bool supported;
    fb::PoolMode mode;
  };
  const Mode kModes[] = {{"pooling_mode_cls_token", true, fb::PoolMode_Cls},
                         {"pooling_mode_mean_tokens", true, fb::PoolMode_Mean},
                         {"pooling_mode_lasttoken", true, fb::PoolMode_Last},
                         {"pooling_mode_max_tokens", true, fb::PoolMode_Max},
                         {"pooling_mode_mean_sqrt_len_tokens", false, fb::PoolMode_Mean},
                         {"pooling_mode_weightedmean_tokens", false, fb::PoolMode_Mean}};
  std::string chosen;
  for (const Mode& m : kModes) {
    if (!config.contains(m.key) || !config.at(m.key).is_boolean() || !config.at(m.key).get<bool>()) continue;
    if (!m.supported) return refused(path, std::string(m.key) + " is not supported (cls_token, mean_tokens, max_tokens, lasttoken)");
    if (!chosen.empty()) {
      return refused(path, chosen + " and " + m.key + " are both set; focal pools with one mode (their concatenation "
                                                      "is not supported)");
    }
    chosen = m.key;
    pooling->mode = m.mode;
  }
  if (chosen.empty()) return refused(path, "no pooling_mode_* is true");
  if (config.contains("include_prompt") && config.at("include_prompt").is_boolean() &&
      !config.at("include_prompt").get<bool>()) {
    return refused(path, "include_prompt false is not supported (the prompt's tokens are pooled)");
  }
  return Status();
}

// sentence_bert_config.json's max_seq_length, when the file has one.
Status read_max_seq(const std::string& dir, SentenceModules* modules) {
  const std::string path = dir + "/sentence_bert_config.json";
  if (!file_exists(path)) return Status();
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json config, read_json_object(path, "sentence-transformers config"));
  const Result<int64_t> max_seq = read_json_integer_or(config, "max_seq_length", 0, 0, int64_t(1) << 20);
  if (!max_seq.ok()) return refused(path, max_seq.status().message());
  modules->max_seq_length = max_seq.value();
  return Status();
}

// One entry of modules.json: {"idx", "name", "path", "type"}.
Status read_module(const std::string& dir, const std::string& list, const nlohmann::json& entry, bool* pooled,
                   SentenceModules* modules) {
  const auto text = [&entry](const char* key) {
    return entry.is_object() && entry.contains(key) && entry.at(key).is_string() ? entry.at(key).get<std::string>()
                                                                                  : std::string();
  };
  const std::string type = text("type"), path = text("path");
  if (path.find("..") != std::string::npos || (!path.empty() && path[0] == '/')) {
    return refused(list, "module path '" + path + "' leaves the folder");
  }
  const std::string module_dir = path.empty() ? dir : dir + "/" + path;
  if (type == std::string(kModulePrefix) + "Transformer") {
    modules->transformer_dir = module_dir;
    return Status();
  }
  if (type == std::string(kModulePrefix) + "Pooling") {
    *pooled = true;
    return read_pooling(module_dir + "/config.json", &modules->pooling);
  }
  if (type == std::string(kModulePrefix) + "Normalize") {
    if (!*pooled) return refused(list, "Normalize before Pooling is not supported");
    modules->pooling.normalize = true;
    return Status();
  }
  return refused(list, "module type '" + type + "' is not supported (Transformer, Pooling, Normalize)");
}

}  // namespace

Result<SentenceModules> read_sentence_modules(const std::string& dir) {
  SentenceModules modules;
  const std::string list = dir + "/modules.json";
  if (!file_exists(list)) return modules;
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json entries, read_json_file(list, "sentence-transformers modules"));
  if (!entries.is_array()) return refused(list, "expected a list of modules [{\"path\", \"type\"}, ...]");
  modules.present = true;
  bool pooled = false;
  for (const nlohmann::json& entry : entries) {
    FOCAL_RETURN_IF_ERROR(read_module(dir, list, entry, &pooled, &modules));
  }
  if (modules.transformer_dir.empty()) return refused(list, "no sentence_transformers.models.Transformer module");
  if (!pooled) return refused(list, "no sentence_transformers.models.Pooling module");
  FOCAL_RETURN_IF_ERROR(read_max_seq(dir, &modules));
  return modules;
}

}  // namespace convert
}  // namespace focal
