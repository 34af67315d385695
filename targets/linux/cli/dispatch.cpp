// The focal command line as a function: the `focal` executable (cli/main.cpp) and the
// Python module's `python3 -m focal` (python/) both call run_cli, so they are one tool.
#include <cstdio>
#include <cstring>
#include <exception>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/printable.h"

namespace focal {
namespace cli {
namespace {

struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv);
};

const Command kCommands[] = {
    {"inspect", "print a model's ops, tensors, parameters and arena size", inspect_command},
    {"plan", "write a model's arena size and op list as a C++ header (firmware)", plan_command},
    {"verify", "run the self-test vectors stored in a model", verify_command},
    {"run", "run a model on .npy inputs or text, write .npy outputs", run_command},
    {"convert", "convert checkpoints to a verified .focal model", convert_command},
    {"generate", "continue a prompt, or translate a source", generate_command},
    {"chat", "converse with a chat model in its chat format (lines of standard input)", chat_command},
    {"tokenize", "print the token ids (and pieces) the model's tokenizer gives a text", tokenize_command},
    {"attention", "draw attention weights as a heatmap (SVG, PNG)", attention_command},
    {"bench", "time a model on this device (latency, tokens/s, memory, per-op)", bench_command},
#ifdef FOCAL_HAVE_SERVE
    {"serve", "serve models over HTTP with OpenAI's API (completions, chat, embeddings)", serve_command},
#endif
};

void print_usage(std::FILE* out) {
  std::fprintf(out, "usage: focal COMMAND [ARGS]\n       focal --version\n\ncommands:\n");
  for (const Command& c : kCommands) std::fprintf(out, "  %-10s %s\n", c.name, c.summary);
  std::fprintf(out, "\nfocal COMMAND --help (or -h, anywhere) describes a command.\n");
}

}  // namespace

int run_cli(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (std::strcmp(argv[1], "--version") == 0) {
    print_version();
    return 0;
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    try {
      return c.run(argc - 2, argv + 2);
    } catch (const std::exception& e) {  // from the standard library (bad_alloc, I/O)
      std::fprintf(stderr, "focal %s: %s\n", c.name, terminal_text(e.what()).c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "focal: unknown command '%s'\n\n", printable(argv[1]).c_str());
  print_usage(stderr);
  return 2;
}

}  // namespace cli
}  // namespace focal
