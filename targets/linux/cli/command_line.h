// The start every focal command shares: `focal COMMAND --help` alone prints the command's
// usage to stdout and exits 0; arguments its parser refuses print the usage to stderr
// and exit 2.
#pragma once

#include <cstdio>
#include <cstring>

namespace focal {
namespace cli {

// True (after printing `usage` to stdout) when the arguments are `--help` alone.
inline bool printed_help(int argc, char** argv, const char* usage) {
  if (argc != 1 || std::strcmp(argv[0], "--help") != 0) return false;
  std::fputs(usage, stdout);
  return true;
}

// -1 when `parse` filled `options` and the command goes on; else the exit code (0 after
// --help, 2 after bad usage).
template <class Options>
int parse_command_line(int argc, char** argv, const char* usage, bool (*parse)(int, char**, Options*),
                       Options* options) {
  if (printed_help(argc, argv, usage)) return 0;
  if (parse(argc, argv, options)) return -1;
  std::fputs(usage, stderr);
  return 2;
}

}  // namespace cli
}  // namespace focal
