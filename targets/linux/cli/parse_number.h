// Numbers given on the command line, parsed strictly, for every focal command: the whole
// text must be the number (no leading spaces, no trailing letters, no exponent or '+' in
// an integer), within the range the command allows. Errors name the option, the text and
// the range, e.g. "--max-new: '1e12' is not an integer in [1, 1048576]".
#pragma once

#include <cstdint>

#include "focal/status.h"

namespace focal {
namespace cli {

// A decimal integer in [min, max]: an optional '-' then digits.
Result<int64_t> parse_integer(const char* option, const char* text, int64_t min, int64_t max);

// Whether a real's lower bound is itself allowed: a tolerance must be > 0, a temperature
// may be 0.
enum class LowerBound { kInclusive, kExclusive };

// A finite decimal real (as strtod reads it: "0.5", "1e-4") in [min, max], or (min, max]
// with LowerBound::kExclusive. NaN, infinities and hexadecimal floats are refused.
Result<double> parse_real(const char* option, const char* text, double min, double max,
                          LowerBound lower = LowerBound::kInclusive);

}  // namespace cli
}  // namespace focal
