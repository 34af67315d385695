#include "json/json_integer.h"

#include <cmath>

namespace focal {
namespace convert {
namespace {

[[noreturn]] void out_of_range(const std::string& field, const nlohmann::json& value, int64_t min, int64_t max) {
  throw JsonFieldError("'" + field + "' must be an integer in [" + std::to_string(min) + ", " +
                           std::to_string(max) + "], not " + value.dump());
}

}  // namespace

int64_t json_integer(const nlohmann::json& value, const std::string& field, int64_t min, int64_t max) {
  int64_t i = 0;
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) out_of_range(field, value, min, max);
    i = static_cast<int64_t>(u);
  } else if (value.is_number_integer()) {
    i = value.get<int64_t>();
  } else if (value.is_number_float()) {
    // Range-check as double before converting: 2^63 is the first value past int64_t.
    const double d = value.get<double>();
    if (!(d == std::floor(d)) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) {
      out_of_range(field, value, min, max);
    }
    i = static_cast<int64_t>(d);
  } else {
    out_of_range(field, value, min, max);
  }
  if (i < min || i > max) out_of_range(field, value, min, max);
  return i;
}

int64_t json_integer_or(const nlohmann::json& object, const char* key, int64_t fallback, int64_t min, int64_t max) {
  if (!object.is_object() || !object.contains(key) || object.at(key).is_null()) return fallback;
  return json_integer(object.at(key), key, min, max);
}

int json_int(const nlohmann::json& value, const std::string& field) {
  return static_cast<int>(
      json_integer(value, field, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

int json_int_or(const nlohmann::json& object, const char* key, int fallback) {
  return static_cast<int>(
      json_integer_or(object, key, fallback, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

}  // namespace convert
}  // namespace focal
