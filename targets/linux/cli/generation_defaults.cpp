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

size_t decode_step_limit(const Session& session, size_t requested, size_t used) {
  const int64_t capacity = session.cache_capacity();
  size_t limit = kMaxUncachedDecodeSteps;
  if (capacity > 0) {
    limit = static_cast<size_t>(capacity) > used ? static_cast<size_t>(capacity) - used : 1;
  } else {
    const int32_t stored = model_id(session.model(), "max_length", -1);
    if (stored > 0) limit = static_cast<size_t>(stored);
  }
  return requested < limit ? requested : limit;
}

}  // namespace cli
}  // namespace focal
