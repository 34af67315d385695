// The command line's shared pieces (targets/linux/cli): strict number parsing, and the
// escaping every name from a file passes through before a header or a terminal.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/parse_number.h"
#include "cli/printable.h"

using namespace focal;
using namespace focal::cli;

namespace {

bool refused(const Result<int64_t>& r, const char* text) {
  return !r.ok() && std::strstr(r.status().message(), text) != nullptr;
}

}  // namespace

TEST_CASE("hostile: integers are parsed whole, within their range, or refused naming option and range") {
  CHECK(parse_integer("--n", "12", 1, 100).value() == 12);
  CHECK(parse_integer("--n", "-7", -10, 10).value() == -7);
  CHECK(parse_integer("--n", "9223372036854775807", 0, INT64_MAX).value() == INT64_MAX);
  CHECK(parse_integer("--n", "-9223372036854775808", INT64_MIN, 0).value() == INT64_MIN);
  for (const char* bad : {"", "12abc", "1e12", " 5", "5 ", "+5", "0x10", "--5", "-", "1.0", "9223372036854775808",
                          "-9223372036854775809", "99999999999999999999"}) {
    CAPTURE(bad);
    CHECK(refused(parse_integer("--max-new", bad, 1, 1 << 20), "--max-new: '"));
    CHECK(refused(parse_integer("--max-new", bad, 1, 1 << 20), "is not an integer in [1, 1048576]"));
  }
  CHECK(refused(parse_integer("--max-new", "-1", 1, 100), "'-1' is not an integer in [1, 100]"));
  CHECK(refused(parse_integer("--repeat", "2147483647", 1, 1000000), "[1, 1000000]"));
}

TEST_CASE("hostile: reals are finite, decimal and within range; a tolerance of 0 or NaN is refused") {
  CHECK(parse_real("--t", "1e-4", 0.0, 1.0, LowerBound::kExclusive).value() == doctest::Approx(1e-4));
  CHECK(parse_real("--t", "0", 0.0, 1.0).value() == 0.0);
  CHECK(parse_real("--t", ".5", 0.0, 1.0).value() == 0.5);
  for (const char* bad : {"0", "-1", "nan", "NaN", "inf", "-inf", "1e999", "1e-400", "0x1p-3", " 0.5", "0.5x", "", "2"}) {
    CAPTURE(bad);
    const Result<double> r = parse_real("--self-test-tolerance", bad, 0.0, 1.0, LowerBound::kExclusive);
    CHECK(!r.ok());
    if (!r.ok()) CHECK(std::strstr(r.status().message(), "--self-test-tolerance: '") != nullptr);
    if (!r.ok()) CHECK(std::strstr(r.status().message(), "is not a number in (0, 1]") != nullptr);
  }
}

TEST_CASE("hostile: printable() leaves no newline, control byte, comment closer or trigraph") {
  const std::string hostile = "x\nint pwned = 1; /* */ ?\?/ \\\x1b[31m\x7f\xff\"";
  const std::string shown = printable(hostile);
  CHECK(shown == "x\\x0aint pwned = 1; /* \\x2a/ \\x3f?/ \\\\\\x1b[31m\\x7f\\xff\\x22");
  for (char c : shown) CHECK((c >= 0x20 && c < 0x7f));
  CHECK(shown.find("*/") == std::string::npos);
  CHECK(shown.find("??") == std::string::npos);
  CHECK(printable("logits") == "logits");
  CHECK(printable(std::string(100, 'a'), 4) == "aaaa...");
}

TEST_CASE("hostile: terminal_text() escapes control characters and C1 controls, keeps UTF-8 text and newlines") {
  CHECK(terminal_text("In the beginning\n\tGod") == "In the beginning\n\tGod");
  CHECK(terminal_text("caf\xc3\xa9") == "caf\xc3\xa9");
  CHECK(terminal_text("a\x1b]0;owned\x07z") == "a\\x1b]0;owned\\x07z");
  CHECK(terminal_text("\xc2\x9b" "31m") == "\\xc2\\x9b31m");
  CHECK(terminal_text("\r\x7f") == "\\x0d\\x7f");
}

TEST_CASE("hostile: the argument walker names unknown options and missing values") {
  const auto walk = [](std::vector<const char*> words) {
    std::vector<char*> argv;
    for (const char* w : words) argv.push_back(const_cast<char*>(w));
    Arguments args(int(argv.size()), argv.data());
    int threads = 1;
    const char* model = nullptr;
    while (args.more()) {
      if (!args.integer("--threads", 1, kMaxThreads, &threads) && !args.positional(&model)) args.refuse_current();
    }
    return args.status().ok() ? std::string("ok ") + std::to_string(threads) : std::string(args.status().message());
  };
  CHECK(walk({"m.focal", "--threads", "4"}) == "ok 4");
  CHECK(walk({"m.focal", "--foo"}) == "unknown option '--foo'");
  CHECK(walk({"m.focal", "--threads"}) == "option '--threads' needs a value");
  CHECK(walk({"m.focal", "--threads", "2x"}) == "--threads: '2x' is not an integer in [1, 256]");
  CHECK(walk({"m.focal", "n.focal"}) == "unexpected argument 'n.focal'");
}
