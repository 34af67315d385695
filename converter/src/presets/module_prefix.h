// Where a PyTorch module sits in a state_dict. People save the module itself
// ("layers.0.self_attn.in_proj_weight") or something holding it: nn.DataParallel
// ("module."), torch.compile ("_orig_mod."), a Lightning or HF-style wrapper ("model."),
// or their own class's attribute ("encoder.", "transformer."). The module is found from
// the tensors that end with its anchor names, without being told.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "presets/preset.h"

namespace focal {
namespace convert {

struct ModuleSearch {
  const char* module;                 // what is looked for, for messages: "nn.TransformerEncoder"
  std::vector<std::string> anchors;   // names (relative to the module) every candidate holds
  std::vector<std::string> excluded;  // names no candidate holds (a decoder layer's cross-attention)
};

// The prefix ("" or ending with '.') of the one module the checkpoint holds. A config
// key "prefix" picks one when there are several. Errors name the preset and say what
// to do: none found (the nearest tensor names), or several (each candidate).
Result<std::string> find_module_prefix(WeightSource& weights, const nlohmann::json& config,
                                       const PresetOptions& options, const ModuleSearch& search);

// Every prefix that holds the module, in checkpoint order.
std::vector<std::string> module_candidates(const WeightSource& weights, const ModuleSearch& search);

// An error of preset `options.preset`: "preset NAME: WHY".
Status preset_refused(const PresetOptions& options, const std::string& why);

}  // namespace convert
}  // namespace focal
