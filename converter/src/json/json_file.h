// A JSON file read whole (config.json, a shard index, a tokenizer.json, vocab.json), with
// errors naming the file; nothing throws.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "focal/status.h"

namespace focal {
namespace convert {

// `what` names the file's role in messages ("config", "shard index").
Result<nlohmann::json> read_json_file(const std::string& path, const char* what);
// The same, refused unless it is an object.
Result<nlohmann::json> read_json_object(const std::string& path, const char* what);
// True when `path` exists (any kind of file: read_json_object refuses what is not regular).
bool file_exists(const std::string& path);

}  // namespace convert
}  // namespace focal
