#include "presets/module_prefix.h"

#include <algorithm>

namespace focal {
namespace convert {
namespace {

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() && text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

// Every prefix p ("" or ending with '.') with p + search.anchors[0] in the checkpoint,
// that also holds the other anchors and none of the excluded names.
std::vector<std::string> module_candidates(const WeightSource& weights, const ModuleSearch& search) {
  const std::vector<std::string> names = weights.names();
  const auto holds = [&](const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
  };
  std::vector<std::string> found;
  for (const std::string& name : names) {
    if (!ends_with(name, search.anchors[0])) continue;
    const std::string prefix = name.substr(0, name.size() - search.anchors[0].size());
    if (!prefix.empty() && prefix.back() != '.') continue;
    const bool complete = std::all_of(search.anchors.begin(), search.anchors.end(),
                                      [&](const std::string& a) { return holds(prefix + a); });
    const bool excluded = std::any_of(search.excluded.begin(), search.excluded.end(),
                                      [&](const std::string& e) { return holds(prefix + e); });
    if (complete && !excluded && std::find(found.begin(), found.end(), prefix) == found.end()) {
      found.push_back(prefix);
    }
  }
  return found;
}

namespace {

std::string quoted_list(const std::vector<std::string>& items) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "'" : ", '") + item + "'";
  return text;
}

// "; nearest names: ..." from WeightSource's missing-tensor message (get_any of a
// tensor the checkpoint lacks takes nothing), or "" when the anchor itself is there.
std::string nearest_names(WeightSource& weights, const std::string& anchor) {
  if (weights.has(anchor)) return "";
  const Result<Matrix> missing = weights.get_any(anchor);
  const std::string message = missing.ok() ? std::string() : missing.status().message();
  const size_t at = message.find("nearest names: ");
  return at == std::string::npos ? "" : "; nearest names: " + message.substr(at + 15);
}

// What the candidates must hold, for the none-found message.
std::string wanted(const ModuleSearch& search) {
  std::string text = "no prefix holds " + quoted_list(search.anchors);
  if (!search.excluded.empty()) text += " without " + quoted_list(search.excluded);
  return text;
}

Result<std::string> chosen_prefix(const nlohmann::json& config, const PresetOptions& options,
                                  const ModuleSearch& search, const std::vector<std::string>& found) {
  FOCAL_ASSIGN_OR_RETURN(const std::string prefix, config_string(config, "prefix", ""));
  if (std::find(found.begin(), found.end(), prefix) != found.end()) return prefix;
  return preset_refused(options, "config prefix '" + prefix + "' holds no " + search.module + "; the candidates are " +
                                     quoted_list(found));
}

}  // namespace

Status preset_refused(const PresetOptions& options, const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, "preset %s: %s", options.preset ? options.preset : "(none)",
                       why.c_str());
}

Result<std::string> find_module_prefix(WeightSource& weights, const nlohmann::json& config,
                                       const PresetOptions& options, const ModuleSearch& search) {
  const std::vector<std::string> found = module_candidates(weights, search);
  if (config.is_object() && config.contains("prefix")) return chosen_prefix(config, options, search, found);
  if (found.size() == 1) return found[0];
  if (found.empty()) {
    return preset_refused(options, std::string("the checkpoint holds no ") + search.module + ": " + wanted(search) +
                                       nearest_names(weights, search.anchors[0]));
  }
  return preset_refused(options, "the checkpoint holds " + std::to_string(found.size()) + " candidate " +
                                     search.module + " modules, under the prefixes " + quoted_list(found) +
                                     "; pick one with --set prefix=NAME or \"prefix\" in --config FILE.json");
}

}  // namespace convert
}  // namespace focal
