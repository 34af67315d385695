#include "cli/generation_defaults.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace focal {
namespace cli {

int32_t model_id(const Model& model, const char* key, int32_t fallback) {
  const char* text = model.hyperparameter(key);
  if (text == nullptr || *text < '0' || *text > '9') return fallback;
  errno = 0;
  char* end = nullptr;
  const long long id = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || id > INT32_MAX) return fallback;  // the file's text: never trusted
  return static_cast<int32_t>(id);
}

int32_t stored_generation_id(const Model& model, const char* name) {
  return model_id(model, (std::string("generation.") + name).c_str(), -1);
}

int32_t generation_id_or(const Model& model, const char* name, int32_t fallback) {
  const int32_t id = stored_generation_id(model, name);
  return id >= 0 ? id : fallback;
}

}  // namespace cli
}  // namespace focal
