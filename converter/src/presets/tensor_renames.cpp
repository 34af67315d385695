#include "presets/tensor_renames.h"

#include <map>
#include <regex>

namespace focal {
namespace convert {
namespace {

struct RenameRule {
  std::string text;  // as given, for messages
  std::regex from;
  std::string to;
};

Status bad_rule(const std::string& rule, const std::string& why) {
  return Status::error(StatusCode::kInvalidArgument, "--rename '%s': %s", rule.c_str(), why.c_str());
}

Result<RenameRule> parse_rule(const std::string& rule) {
  const size_t equals = rule.rfind('=');
  if (equals == std::string::npos || equals == 0) {
    return bad_rule(rule, "expected FROM=TO, a regular expression and its replacement (e.g. '^module\\.(.*)=$1')");
  }
  RenameRule parsed{rule, std::regex(), rule.substr(equals + 1)};
  try {
    parsed.from = std::regex(rule.substr(0, equals), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return bad_rule(rule, "'" + rule.substr(0, equals) + "' is not a valid regular expression (" + e.what() + ")");
  }
  return parsed;
}

std::string renamed(const std::vector<RenameRule>& rules, const std::string& name) {
  for (const RenameRule& rule : rules) {
    if (std::regex_search(name, rule.from)) return std::regex_replace(name, rule.from, rule.to);
  }
  return name;
}

}  // namespace

Status rename_tensors(const std::vector<std::string>& rules, std::vector<Checkpoint>* checkpoints) {
  if (rules.empty()) return Status();
  std::vector<RenameRule> parsed;
  for (const std::string& rule : rules) {
    Result<RenameRule> r = parse_rule(rule);
    if (!r.ok()) return r.status();
    parsed.push_back(std::move(r).value());
  }
  std::map<std::string, std::string> original_of;  // new name -> the tensor's name in the checkpoint
  for (Checkpoint& checkpoint : *checkpoints) {
    for (CheckpointTensor& t : checkpoint.tensors) {
      const std::string to = renamed(parsed, t.name);
      const auto [it, fresh] = original_of.emplace(to, t.name);
      if (!fresh && (to != t.name || it->second != to)) {  // same name in two --weights files: as without rules
        return Status::error(StatusCode::kInvalidArgument,
                             "--rename maps both '%s' and '%s' to '%s'; make the rules tell them apart",
                             it->second.c_str(), t.name.c_str(), to.c_str());
      }
      t.name = to;
    }
  }
  return Status();
}

}  // namespace convert
}  // namespace focal
