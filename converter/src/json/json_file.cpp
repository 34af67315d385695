#include "json/json_file.h"

#include <sys/stat.h>

#include <fstream>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

Result<nlohmann::json> read_json_file(const std::string& path, const char* what) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open %s '%s'", what, path.c_str());
  nlohmann::json json = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::error(StatusCode::kInvalidArgument, "%s '%s' is not JSON", what, path.c_str());
  return json;
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

}  // namespace convert
}  // namespace focal
