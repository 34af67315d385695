#include "json/json_integer.h"

#include <cmath>

namespace focal {
namespace convert {
namespace {

Status out_of_range(const std::string& field, const nlohmann::json& value, int64_t min, int64_t max) {
  const std::string message = "'" + field + "' must be an integer in [" + std::to_string(min) + ", " +
                              std::to_string(max) + "], not " + value.dump();
  return Status::error(StatusCode::kInvalidArgument, "%s", message.c_str());
}

// The value as int64_t when it is an integer (or an integral float) int64_t holds.
bool integral_value(const nlohmann::json& value, int64_t* out) {
  if (value.is_number_unsigned()) {
    const uint64_t u = value.get<uint64_t>();
    *out = static_cast<int64_t>(u);
    return u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  }
  if (value.is_number_integer()) {
    *out = value.get<int64_t>();
    return true;
  }
  if (!value.is_number_float()) return false;
  // Range-check as double before converting: 2^63 is the first value past int64_t.
  const double d = value.get<double>();
  if (!(d == std::floor(d)) || d < -9223372036854775808.0 || d >= 9223372036854775808.0) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

template <class T>
T value_or_throw(const Result<T>& result) {
  if (!result.ok()) throw JsonFieldError(result.status().message());
  return result.value();
}

}  // namespace

Result<int64_t> read_json_integer(const nlohmann::json& value, const std::string& field, int64_t min,
                                  int64_t max) {
  int64_t i = 0;
  if (!integral_value(value, &i) || i < min || i > max) return out_of_range(field, value, min, max);
  return i;
}

Result<int64_t> read_json_integer_or(const nlohmann::json& object, const char* key, int64_t fallback,
                                     int64_t min, int64_t max) {
  if (!object.is_object() || !object.contains(key) || object.at(key).is_null()) return fallback;
  return read_json_integer(object.at(key), key, min, max);
}

int64_t json_integer(const nlohmann::json& value, const std::string& field, int64_t min, int64_t max) {
  return value_or_throw(read_json_integer(value, field, min, max));
}

int64_t json_integer_or(const nlohmann::json& object, const char* key, int64_t fallback, int64_t min,
                        int64_t max) {
  return value_or_throw(read_json_integer_or(object, key, fallback, min, max));
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
