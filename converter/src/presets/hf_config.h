// Hugging Face config.json as transformers writes it, next to the checkpoint's tensors:
// sizes come from the tensors' shapes (a config key, when present, must agree), the
// label names from id2label, and only what no shape states from the config.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "presets/preset.h"

namespace focal {
namespace convert {

// Errors here name the config key or the tensor themselves ("config: ..."), so they
// are returned as they are.
// Dimension `axis` of checkpoint tensor `tensor`; when the config has `key`, its value
// must equal it (an error names both). A missing tensor is get()'s error, unless the
// config states the size (random weights for benchmarks have no shapes).
Result<int64_t> size_from_tensor(const WeightSource& weights, const nlohmann::json& config, const char* key,
                                 const std::string& tensor, size_t axis);
// How many numbered blocks `before{i}after` exist, counting i = 0, 1, ... until one is absent.
int64_t count_blocks(const WeightSource& weights, const std::string& before, const std::string& after);
// The layer count from the blocks found, checked against config key `key` as above; no
// block 0 is get()'s missing-tensor error for it.
Result<int64_t> layers_from_tensors(const WeightSource& weights, const nlohmann::json& config, const char* key,
                                    const std::string& before, const std::string& after);
// id2label ({"0": "NEGATIVE", ...}, keys 0..n-1 in any order) as names by id; empty
// when the config has none.
Result<std::vector<std::string>> hf_label_names(const nlohmann::json& config);
// The label count a classifier head's rows state, checked against id2label's entries or
// num_labels (transformers takes id2label's length when both are there).
Status check_label_count(const nlohmann::json& config, const std::vector<std::string>& names,
                         const std::string& head, int64_t rows);
// The prefix ("bert.", "module.bert.", a wrapper's attribute) under which the checkpoint
// holds `anchor`; "" when it holds it bare or not at all.
std::string prefix_of(const WeightSource& weights, const std::string& anchor);
// A head count no tensor states: config key `key`, else transformers' default
// `fallback`, with a warning that says how to give the model's own.
Result<int64_t> head_count(const nlohmann::json& config, const char* key, int64_t fallback,
                           const PresetOptions& options);
// The names as hyperparameters label.0, label.1, ... (what `focal run` prints).
void store_label_names(ModelWriter& writer, const std::vector<std::string>& names);

}  // namespace convert
}  // namespace focal
