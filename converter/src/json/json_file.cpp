#include "json/json_file.h"

#include <sys/stat.h>

#include <fstream>
#include <iterator>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

size_t json_nesting(const char* text, size_t size, size_t limit) {
  size_t depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < size && deepest <= limit; ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;  // the escaped character cannot end the string
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

namespace {

Status too_large(const std::string& source, uint64_t bytes) {
  return Status::error(StatusCode::kInvalidArgument, "%s holds %llu bytes of JSON, more than the %llu read",
                       source.c_str(), static_cast<unsigned long long>(bytes),
                       static_cast<unsigned long long>(kMaxJsonFileBytes));
}

}  // namespace

Result<nlohmann::json> parse_json(const char* text, size_t size, const std::string& source,
                                  const nlohmann::json::parser_callback_t& callback) {
  if (size > kMaxJsonFileBytes) return too_large(source, size);
  if (json_nesting(text, size, kMaxJsonDepth) > kMaxJsonDepth) {
    return Status::error(StatusCode::kInvalidArgument, "%s nests arrays and objects more than %zu levels deep",
                         source.c_str(), kMaxJsonDepth);
  }
  nlohmann::json json = nlohmann::json::parse(text, text + size, callback, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::error(StatusCode::kInvalidArgument, "%s is not JSON", source.c_str());
  return json;
}

Result<nlohmann::json> read_json_file(const std::string& path, const char* what) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  const std::string source = std::string(what) + " '" + path + "'";
  struct stat info {};
  if (::stat(path.c_str(), &info) == 0 && static_cast<uint64_t>(info.st_size) > kMaxJsonFileBytes) {
    return too_large(source, static_cast<uint64_t>(info.st_size));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open %s", source.c_str());
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return parse_json(text.data(), text.size(), source);
}

Result<nlohmann::json> read_json_object(const std::string& path, const char* what) {
  Result<nlohmann::json> json = read_json_file(path, what);
  if (!json.ok()) return json.status();
  if (!json->is_object()) {
    return Status::error(StatusCode::kInvalidArgument, "%s '%s' is not a JSON object", what, path.c_str());
  }
  return json;
}

bool file_exists(const std::string& path) {
  struct stat info {};
  return ::stat(path.c_str(), &info) == 0;
}

std::string json_error_text(const nlohmann::json::exception& e) {
  const std::string text = e.what();
  const size_t tag_end = text.rfind("[json.exception.", 0) == 0 ? text.find("] ") : std::string::npos;
  return tag_end == std::string::npos ? text : text.substr(tag_end + 2);
}

}  // namespace convert
}  // namespace focal
