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

namespace {

std::vector<int32_t> default_end_tokens_without_list(const Model& model, int32_t fallback) {
  const int32_t id = generation_id_or(model, "eos_token_id", fallback);
  return id >= 0 ? std::vector<int32_t>{id} : std::vector<int32_t>{};
}

}  // namespace

std::vector<int32_t> default_end_tokens(const Model& model, int32_t fallback) {
  std::vector<int32_t> ids;
  if (const char* list = model.hyperparameter("generation.eos_token_ids")) {
    // "a,b,c" of digits only; anything else from the file makes the list absent.
    for (const char* at = list; *at != '\0';) {
      if (*at < '0' || *at > '9') return default_end_tokens_without_list(model, fallback);
      errno = 0;
      char* end = nullptr;
      const long long id = std::strtoll(at, &end, 10);
      if (errno != 0 || id > INT32_MAX || (*end != ',' && *end != '\0')) {
        return default_end_tokens_without_list(model, fallback);
      }
      ids.push_back(static_cast<int32_t>(id));
      at = *end == ',' ? end + 1 : end;
    }
    if (!ids.empty()) return ids;
  }
  return default_end_tokens_without_list(model, fallback);
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
