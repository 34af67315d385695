#include "hf/shard_index.h"

#include <algorithm>

#include "assign_or_return.h"
#include "json/json_file.h"

namespace focal {
namespace convert {
namespace {

std::string directory_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

std::string file_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A shard is named by a plain file name beside the index: never a path out of the folder.
bool plain_file_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos;
}

}  // namespace

Result<ShardIndex> read_shard_index(const std::string& path) {
  FOCAL_ASSIGN_OR_RETURN(const nlohmann::json json, read_json_object(path, "shard index"));
  if (!json.contains("weight_map") || !json.at("weight_map").is_object() || json.at("weight_map").empty()) {
    return Status::error(StatusCode::kInvalidArgument, "shard index '%s' has no \"weight_map\" {tensor: file}",
                         path.c_str());
  }
  ShardIndex index;
  index.path = path;
  const std::string dir = directory_of(path);
  for (const auto& [tensor, file] : json.at("weight_map").items()) {
    if (!file.is_string() || !plain_file_name(file.get<std::string>())) {
      return Status::error(StatusCode::kInvalidArgument,
                           "shard index '%s': tensor '%s' maps to %s, not a file name beside the index", path.c_str(),
                           tensor.c_str(), file.dump().c_str());
    }
    const std::string shard = dir + "/" + file.get<std::string>();
    index.shard[tensor] = file.get<std::string>();
    if (std::find(index.files.begin(), index.files.end(), shard) != index.files.end()) continue;
    if (!file_exists(shard)) {
      return Status::error(StatusCode::kIoError, "shard index '%s' names shard '%s' (tensor '%s'), which is missing",
                           path.c_str(), file.get<std::string>().c_str(), tensor.c_str());
    }
    index.files.push_back(shard);
  }
  return index;
}

Status check_shards(const ShardIndex& index, const std::vector<Checkpoint>& shards) {
  std::map<std::string, std::string> found;  // tensor -> the shard file that holds it
  for (const Checkpoint& shard : shards) {
    const std::string name = file_name(shard.path);
    for (const CheckpointTensor& t : shard.tensors) {
      const auto [at, added] = found.emplace(t.name, name);
      if (!added) {
        return Status::error(StatusCode::kInvalidArgument, "tensor '%s' is in two shards, '%s' and '%s' (index '%s')",
                             t.name.c_str(), at->second.c_str(), name.c_str(), index.path.c_str());
      }
    }
  }
  for (const auto& [tensor, shard] : index.shard) {
    const auto at = found.find(tensor);
    if (at == found.end() || at->second != shard) {
      return Status::error(StatusCode::kInvalidArgument, "shard index '%s' puts tensor '%s' in '%s', which lacks it%s",
                           index.path.c_str(), tensor.c_str(), shard.c_str(),
                           at == found.end() ? "" : (" (it is in '" + at->second + "')").c_str());
    }
  }
  return Status();
}

}  // namespace convert
}  // namespace focal
