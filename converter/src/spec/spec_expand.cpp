#include "spec/spec_expand.h"

#include <string>
#include <utility>

#include "json/json_integer.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

using nlohmann::json;

// Bounds on what "repeat" may expand to: at most 65536 layers in all (the deepest real
// stacks are a few hundred blocks of under ten layers, and every layer becomes at least
// one engine op), and at most 2^22 JSON values copied by the expansion (a few hundred MB
// at most; a 12-layer BERT spec copies about 3,000).
constexpr int64_t kMaxSpecLayers = 65536;
constexpr size_t kMaxExpandedValues = size_t(1) << 22;

// Layers of "repeat" blocks copied with "{i}", "{i+1}" and "{i-1}" replaced in every
// string ("{i-1}" names the previous copy's output; in copy 0 it is "-1").
json substitute(const json& j, int i) {
  if (j.is_string()) {
    std::string s = j.get<std::string>();
    for (const auto& [key, value] : {std::pair<std::string, int>{"{i+1}", i + 1}, {"{i-1}", i - 1}, {"{i}", i}}) {
      for (size_t at; (at = s.find(key)) != std::string::npos;) s.replace(at, key.size(), std::to_string(value));
    }
    return s;
  }
  if (j.is_array() || j.is_object()) {
    json out = j;
    for (auto it = out.begin(); it != out.end(); ++it) *it = substitute(*it, i);
    return out;
  }
  return j;
}

size_t json_values(const json& j) {
  size_t n = 1;
  if (j.is_array() || j.is_object()) {
    for (const json& item : j) n += json_values(item);
  }
  return n;
}

Status budget_error(const std::string& what, size_t limit) {
  return Status::error(StatusCode::kInvalidArgument, "spec: %s more than %zu %s (the spec's expansion budget)",
                       what == "values" ? "\"repeat\" expands to" : "expands to", limit,
                       what == "values" ? "JSON values" : "layers");
}

}  // namespace

Expander::Expander() : values_left_(kMaxExpandedValues) {}

Status Expander::expand(const json& list, const char* key, std::vector<json>* flat) {
  for (const json& item : list) {
    if (!item.contains("repeat")) {
      if (items_ >= static_cast<size_t>(kMaxSpecLayers)) return budget_error("layers", kMaxSpecLayers);
      ++items_;
      flat->push_back(item);
      continue;
    }
    const int64_t count = json_integer(item.at("repeat"), "repeat", 0, kMaxSpecLayers);
    const size_t per_copy = json_values(item.at(key));
    for (int64_t i = 0; i < count; ++i) {
      if (per_copy > values_left_) return budget_error("values", kMaxExpandedValues);
      values_left_ -= per_copy;
      FOCAL_RETURN_IF_ERROR(expand(substitute(item.at(key), static_cast<int>(i)), key, flat));
    }
  }
  return Status();
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
