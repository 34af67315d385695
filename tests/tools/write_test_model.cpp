// focal-test-model OUT.focal: writes the tiny test model (tests/support/tiny_model.h).
// focal-test-model OUT.focal --int8-activations: the same with int8 weights run on int8
// activations (every dense weight DenseInt8Dot), for the firmware's self-tests.
// focal-test-model OUT.focal --f16-weights: the same with f16 dense weights, which a
// firmware engine built without them (FOCAL_HALF_WEIGHTS) must refuse at load.
// focal-test-model OUT.focal --named [--architecture TEXT] [--input-name NAME]
//                  [--output-name NAME] [--op-name NAME] [--symbol-name NAME]:
// writes a one-op model (a softmax over x [batch, seq, 4]) whose names and metadata are
// the given bytes, through the normal writer so the checksum is valid: the hostile files
// of the CLI tests (an output named "../x", an architecture holding a newline and C++,
// names with terminal escape sequences). Values may use \n, \t, \e and \xNN escapes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "model_writer.h"
#include "support/tiny_model.h"

namespace {

struct Names {
  std::string architecture = "named-test-model";
  std::string input = "x";
  std::string output = "y";
  std::string op = "softmax";
  std::string symbol = "seq";
};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The bytes an argument stands for: \n, \t, \e (ESC), \\ and \xNN, so a shell argument
// can carry any byte.
std::string unescaped(const char* text) {
  std::string out;
  for (const char* p = text; *p != '\0'; ++p) {
    if (*p != '\\' || p[1] == '\0') {
      out += *p;
      continue;
    }
    const char kind = *++p;
    if (kind == 'n') out += '\n';
    else if (kind == 't') out += '\t';
    else if (kind == 'e') out += '\x1b';
    else if (kind == 'x' && hex_digit(p[1]) >= 0 && hex_digit(p[2]) >= 0) {
      out += static_cast<char>(hex_digit(p[1]) * 16 + hex_digit(p[2]));
      p += 2;
    } else {
      out += kind;
    }
  }
  return out;
}

std::vector<uint8_t> build_named_model(const Names& names) {
  focal::ModelWriter writer;
  const int batch = writer.add_symbol("batch", 2);
  const int seq = writer.add_symbol(names.symbol, 8);
  const std::vector<int64_t> shape = {2, 8, 4};
  const std::vector<int32_t> dims = {batch, seq, -1};
  const int x = writer.add_input(names.input, focal::DType::kF32, shape, dims);
  const int y = writer.add_output(names.output, focal::DType::kF32, shape, dims);
  writer.add_softmax(names.op, x, y);
  writer.set_metadata(names.architecture, "focal tests", "tests/tools/write_test_model.cpp");
  auto file = writer.finish();
  if (!file.ok()) std::fprintf(stderr, "focal-test-model: %s\n", file.status().message());
  return file.ok() ? file.value() : std::vector<uint8_t>();
}

// Fills `names` from the options after OUT.focal --named; false on a bad option.
bool parse_names(int argc, char** argv, Names* names) {
  for (int i = 3; i < argc; i += 2) {
    if (i + 1 >= argc) return false;
    const std::string option = argv[i], value = unescaped(argv[i + 1]);
    if (option == "--architecture") names->architecture = value;
    else if (option == "--input-name") names->input = value;
    else if (option == "--output-name") names->output = value;
    else if (option == "--op-name") names->op = value;
    else if (option == "--symbol-name") names->symbol = value;
    else return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool named = argc >= 3 && std::strcmp(argv[2], "--named") == 0;
  const bool int8 = argc == 3 && std::strcmp(argv[2], "--int8-activations") == 0;
  const bool f16 = argc == 3 && std::strcmp(argv[2], "--f16-weights") == 0;
  Names names;
  if (argc < 2 || (argc > 2 && !named && !int8 && !f16) || (named && !parse_names(argc, argv, &names))) {
    std::fprintf(stderr,
                 "usage: focal-test-model OUT.focal [--int8-activations | --f16-weights |\n"
                 "                        --named [--architecture TEXT]\n"
                 "                        [--input-name NAME] [--output-name NAME] [--op-name NAME]\n"
                 "                        [--symbol-name NAME]]\n");
    return 2;
  }
  focal::testing::TinyConfig tiny;
  if (int8) {
    tiny.weight_type = focal::DType::kI8;
    tiny.int8_activations = true;
  }
  if (f16) tiny.weight_type = focal::DType::kF16;
  const auto bytes = named ? build_named_model(names) : focal::testing::build_tiny_model(tiny);
  if (bytes.empty()) {
    std::fprintf(stderr, "focal-test-model: the writer failed\n");
    return 1;
  }
  std::FILE* out = std::fopen(argv[1], "wb");
  if (out == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), out) != bytes.size() ||
      std::fclose(out) != 0) {
    std::fprintf(stderr, "focal-test-model: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
