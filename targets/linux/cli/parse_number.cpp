#include "cli/parse_number.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/printable.h"

namespace focal {
namespace cli {
namespace {

Status not_an_integer(const char* option, const char* text, int64_t min, int64_t max) {
  return Status::error(StatusCode::kInvalidArgument, "%s: '%s' is not an integer in [%lld, %lld]", option,
                       printable(text).c_str(), static_cast<long long>(min), static_cast<long long>(max));
}

// Digits only, accumulated as a magnitude; false when the magnitude passes `limit`.
bool read_magnitude(const char* digits, uint64_t limit, uint64_t* magnitude) {
  if (*digits == '\0') return false;
  uint64_t value = 0;
  for (const char* p = digits; *p != '\0'; ++p) {
    if (*p < '0' || *p > '9') return false;
    const uint64_t digit = static_cast<uint64_t>(*p - '0');
    if (value > (limit - digit) / 10) return false;
    value = value * 10 + digit;
  }
  *magnitude = value;
  return true;
}

}  // namespace

Result<int64_t> parse_integer(const char* option, const char* text, int64_t min, int64_t max) {
  const bool negative = text[0] == '-';
  // The largest magnitude an int64_t holds with this sign: 2^63 - 1, or 2^63 when negative.
  const uint64_t limit = negative ? uint64_t(INT64_MAX) + 1 : uint64_t(INT64_MAX);
  uint64_t magnitude = 0;
  if (!read_magnitude(negative ? text + 1 : text, limit, &magnitude)) return not_an_integer(option, text, min, max);
  const int64_t value = negative ? (magnitude == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -int64_t(magnitude))
                                 : int64_t(magnitude);
  if (value < min || value > max) return not_an_integer(option, text, min, max);
  return value;
}

Result<double> parse_real(const char* option, const char* text, double min, double max, LowerBound lower) {
  const bool exclusive = lower == LowerBound::kExclusive;
  const auto refuse = [&]() {
    return Status::error(StatusCode::kInvalidArgument, "%s: '%s' is not a number in %c%g, %g]", option,
                         printable(text).c_str(), exclusive ? '(' : '[', min, max);
  };
  // strtod also takes leading spaces, "inf", "nan" and hexadecimal ("0x1p3"): refused here.
  const char first = text[0];
  if (!(first == '-' || first == '.' || (first >= '0' && first <= '9'))) return refuse();
  if (std::strpbrk(text, "xXpP") != nullptr) return refuse();
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || errno == ERANGE || !std::isfinite(value)) return refuse();
  const bool above_min = exclusive ? value > min : value >= min;
  if (!above_min || value > max) return refuse();
  return value;
}

}  // namespace cli
}  // namespace focal
