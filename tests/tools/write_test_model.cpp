// focal-test-model OUT.focal: writes the tiny test model (tests/support/tiny_model.h).
#include <cstdio>

#include "support/tiny_model.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: focal-test-model OUT.focal\n");
    return 2;
  }
  const auto bytes = focal::testing::build_tiny_model();
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
