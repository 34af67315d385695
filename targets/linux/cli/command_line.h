// The start every focal command shares: `focal COMMAND --help` (or -h, anywhere among its
// arguments, as llama.cpp's tools take it) prints the command's usage to stdout and exits
// 0, --version the tool's version; arguments its parser refuses print the reason ("unknown
// option '--foo'", "--max-new: '1e12' is not an integer in [1, 1048576]") and the usage
// to stderr and exit 2.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "cli/parse_number.h"
#include "cli/printable.h"
#include "focal/status.h"

namespace focal {
namespace cli {

// Limits shared by the commands' options (a range every error message states).
constexpr int64_t kMaxThreads = 256;          // --threads
constexpr int64_t kMaxTokens = int64_t(1) << 24;  // lengths: --max-new, --seq, --prompt, --gen, --max-seq
constexpr int64_t kMaxRepeats = 1000000;      // --warmup, --repeat

// "focal <version>" and the build's instruction sets, to stdout (focal --version).
void print_version();
// The project's version ("0.1.0"), as --version prints it and `focal bench --json` records it.
const char* focal_version();

// True (after printing `usage`, or the version, to stdout) when any argument is --help,
// -h or --version.
inline bool printed_help(int argc, char** argv, const char* usage) {
  for (int i = 0; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(usage, stdout);
      return true;
    }
    if (std::strcmp(argv[i], "--version") == 0) {
      print_version();
      return true;
    }
  }
  return false;
}

// Prints "focal <command>: <message>" to stderr, control characters escaped (messages
// quote names from files), and returns the failure exit code 1.
int report_failure(const char* command, const Status& status);

// Walks a command's arguments. Each matcher looks at the current argument; when it is
// the named option, it takes it (and its value, parsed strictly) and returns true. The
// first problem (a missing value, a bad number, an unknown option) stops the walk and
// is kept in status().
class Arguments {
 public:
  Arguments(int argc, char** argv) : argc_(argc), argv_(argv) {}

  bool more() const { return status_.ok() && index_ < argc_; }
  const Status& status() const { return status_; }

  // `name` alone.
  bool flag(const char* name);
  // `name VALUE`.
  bool text(const char* name, const char** value);
  bool text(const char* name, std::string* value);
  // `name N` with N an integer in [min, max] (a range the target type holds).
  template <class Int>
  bool integer(const char* name, int64_t min, int64_t max, Int* value) {
    const char* text_value = nullptr;
    if (!text(name, &text_value)) return false;
    if (text_value == nullptr) return true;  // the missing value is recorded
    const Result<int64_t> parsed = parse_integer(name, text_value, min, max);
    if (parsed.ok()) *value = static_cast<Int>(parsed.value());
    else status_ = parsed.status();
    return true;
  }
  // `name X` with X a finite real in the range (see parse_real).
  bool real(const char* name, double min, double max, double* value, LowerBound lower = LowerBound::kInclusive);
  bool real(const char* name, double min, double max, float* value, LowerBound lower = LowerBound::kInclusive);
  // An argument not starting with '-', taken while `*value` is still null.
  bool positional(const char** value);
  // Records the current argument as unknown ("unknown option '--foo'", or "unexpected
  // argument 'x'"), ending the walk.
  void refuse_current();
  // Records a problem found by the command itself (e.g. a bad list of ids); an ok
  // status changes nothing.
  void fail(const Status& status) {
    if (!status.ok()) status_ = status;
  }

 private:
  const char* current() const { return argv_[index_]; }
  int argc_;
  char** argv_;
  int index_ = 0;
  Status status_;
};

// Missing required arguments are usage errors too.
Status missing_argument(const char* what);

// -1 when `parse` filled `options` and the command goes on; else the exit code (0 after
// --help; 2 after printing "focal <command>: <reason>" and the usage).
template <class Options>
int parse_command_line(const char* command, int argc, char** argv, const char* usage,
                       Status (*parse)(int, char**, Options*), Options* options) {
  if (printed_help(argc, argv, usage)) return 0;
  const Status parsed = parse(argc, argv, options);
  if (parsed.ok()) return -1;
  report_failure(command, parsed);
  std::fputs(usage, stderr);
  return 2;
}

}  // namespace cli
}  // namespace focal
