// Status messages read the same with every C library: the integer conversions with
// length modifiers that newlib-nano lacks (%zu, %lld, %llu) render here, the others
// pass through. Expected texts are literal, so the test means the same on the device
// (tests/firmware) as on Linux.
#include <doctest/doctest.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <string>

#include "focal/status.h"
#include "support/format_message.h"

namespace {

std::string format(size_t size, const char* fmt, ...) {
  char out[256];
  va_list args;
  va_start(args, fmt);
  focal::format_message(out, size, fmt, args);
  va_end(args);
  return out;
}

TEST_CASE("format_message: integers of every length modifier, extremes included") {
  CHECK(format(256, "%d %i %u", -7, 42, 4000000000u) == "-7 42 4000000000");
  CHECK(format(256, "%zu bytes", SIZE_MAX) == std::to_string(SIZE_MAX) + " bytes");
  CHECK(format(256, "%lld..%lld", static_cast<long long>(INT64_MIN), static_cast<long long>(INT64_MAX)) ==
        "-9223372036854775808..9223372036854775807");
  CHECK(format(256, "%llu", static_cast<unsigned long long>(UINT64_MAX)) == "18446744073709551615");
  CHECK(format(256, "%ld %lu", -123456L, 123456UL) == "-123456 123456");
  CHECK(format(256, "%hd %hhu %jd %td", 70000, 300, static_cast<intmax_t>(-5), static_cast<ptrdiff_t>(-6)) ==
        "4464 44 -5 -6");
  CHECK(format(256, "%08x %04X %o %x", 0xBEEFu, 0xABu, 8u, 0u) == "0000beef 00AB 10 0");
  CHECK(format(256, "%+u % u", 5u, 6u) == "5 6");  // + and space apply to signed conversions only
}

TEST_CASE("format_message: width, precision, flags and the library's conversions") {
  CHECK(format(256, "[%5d|%-5d|%+d|% d|%.3d|%05d]", 42, 42, 42, 42, 7, -42) ==
        "[   42|42   |+42| 42|007|-0042]");
  CHECK(format(256, "[%*d|%-*zu]", 4, 1, 3, size_t(2)) == "[   1|2  ]");
  CHECK(format(256, "'%s' '%.*s' '%6s' '%-4s|'", "dense", 3, "LayerNorm", "ab", "x") ==
        "'dense' 'Lay' '    ab' 'x   |'");
  CHECK(format(256, "%c%c 100%%", 'o', 'k') == "ok 100%");
  CHECK(format(256, "epsilon %g, %.2f", 1e-5, 3.14159) == "epsilon 1e-05, 3.14");
  // The newlib-nano failure: a %s after %zu / %lld must still find its own argument.
  CHECK(format(256, "w[%zu][%zu] as %s (%lld) in '%s'", size_t(1), size_t(2), "f16",
               static_cast<long long>(-1), "dense") == "w[1][2] as f16 (-1) in 'dense'");
}

TEST_CASE("format_message: cut at the buffer, always terminated; unknown conversions end it") {
  CHECK(format(8, "%s", "0123456789") == "0123456");
  CHECK(format(8, "%zu", size_t(123456789)) == "1234567");
  CHECK(format(1, "anything %d", 1).empty());
  CHECK(format(256, "a %q %d", 1) == "a ");
  CHECK(format(256, "trailing %") == "trailing ");
}

TEST_CASE("format_message: Status::error messages use it") {
  const focal::Status s = focal::Status::error(focal::StatusCode::kInvalidArgument,
                                               "input '%s' needs %zu bytes, given %zu", "x", size_t(64), size_t(0));
  CHECK(std::string(s.message()) == "input 'x' needs 64 bytes, given 0");
}

}  // namespace
