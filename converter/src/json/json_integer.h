#pragma once
// Integers read from JSON that users and attackers write (specs, config.json).
//
// nlohmann's get<int64_t>() converts a JSON float with a plain cast, which is undefined
// behaviour when the value lies outside the type's range (a spec with "heads": 5.6e33
// reached it under the fuzzer), and get<int>() silently truncates 64-bit integers. These
// accept a JSON integer, or a float holding an integral value, within [min, max], and
// otherwise return an error naming the field. They never throw.

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "focal/status.h"

namespace focal {
namespace convert {

Result<int64_t> read_json_integer(const nlohmann::json& value, const std::string& field,
                                  int64_t min = std::numeric_limits<int64_t>::min(),
                                  int64_t max = std::numeric_limits<int64_t>::max());

// object[key] as above, or fallback when the key is absent or null.
Result<int64_t> read_json_integer_or(const nlohmann::json& object, const char* key, int64_t fallback,
                                     int64_t min = std::numeric_limits<int64_t>::min(),
                                     int64_t max = std::numeric_limits<int64_t>::max());

// The same as exceptions, for code that reads JSON inside the one try block around
// nlohmann's own exceptions (the declarative spec, spec/spec_builder.cpp): the message is
// the Status's.
struct JsonFieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int64_t json_integer(const nlohmann::json& value, const std::string& field,
                     int64_t min = std::numeric_limits<int64_t>::min(),
                     int64_t max = std::numeric_limits<int64_t>::max());
int64_t json_integer_or(const nlohmann::json& object, const char* key, int64_t fallback,
                        int64_t min = std::numeric_limits<int64_t>::min(),
                        int64_t max = std::numeric_limits<int64_t>::max());

// Bounded to int, for counts held in int fields (heads, repeat counts).
int json_int(const nlohmann::json& value, const std::string& field);
int json_int_or(const nlohmann::json& object, const char* key, int fallback);

}  // namespace convert
}  // namespace focal
