// The converter's one JSON reader: every JSON text it takes (config.json, a shard index,
// tokenizer.json, vocab.json, generation_config.json, a spec, calibration cases, a
// safetensors header, --set values) is parsed here, bounded in size and depth before
// the parser sees it, with errors naming the file; nothing throws. nlohmann's parser and
// the code that walks its values recurse once per nesting level: 150,000 nested arrays
// (300 KB) overflowed the stack before this bound.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "focal/status.h"

namespace focal {
namespace convert {

// Deeper than any file the converter reads (tokenizer.json nests 6 levels, a spec about
// 8) and far from what the stack can take.
constexpr size_t kMaxJsonDepth = 128;
// The largest JSON file read: hub tokenizer.json files reach about 35 MB (Gemma 3).
constexpr uint64_t kMaxJsonFileBytes = uint64_t(1) << 30;

// The deepest nesting of arrays and objects in `text` (strings, escapes included, are
// skipped), counted up to `limit` + 1 at most: linear, no recursion.
size_t json_nesting(const char* text, size_t size, size_t limit);

// `text` as JSON. `source` names it in errors, e.g. "tokenizer.json 'dir/tokenizer.json'".
// `callback` is nlohmann's parser callback (the safetensors header checks keys with one).
Result<nlohmann::json> parse_json(const char* text, size_t size, const std::string& source,
                                  const nlohmann::json::parser_callback_t& callback = nullptr);

// A JSON file; `what` names the file's role in messages ("config", "shard index").
Result<nlohmann::json> read_json_file(const std::string& path, const char* what);
// The same, refused unless it is an object.
Result<nlohmann::json> read_json_object(const std::string& path, const char* what);
// True when `path` exists (any kind of file: read_json_object refuses what is not regular).
bool file_exists(const std::string& path);

// The message of a nlohmann exception without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const nlohmann::json::exception& e);

}  // namespace convert
}  // namespace focal
