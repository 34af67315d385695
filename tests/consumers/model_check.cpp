// A program built outside the focal repository against an installed prefix (through
// find_package(focal) or `pkg-config focal`): it loads the .focal file named on the
// command line into 64-byte aligned memory and runs the self-test stored in it in an
// arena of the size the engine asks for (run_self_test.h). Exit status 0 only if the
// model loads and every self-test case passes.
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "focal/focal.h"
#include "run_self_test.h"

namespace {

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<uint8_t, FreeDeleter>;

// The engine reads weights in place: model bytes and arena 64-byte aligned.
AlignedBytes aligned_bytes(size_t size) {
  const size_t rounded = (size + 63) / 64 * 64;
  return AlignedBytes(static_cast<uint8_t*>(std::aligned_alloc(64, rounded == 0 ? 64 : rounded)));
}

AlignedBytes read_file(const char* path, size_t* size) {
  FILE* file = std::fopen(path, "rb");
  if (file == nullptr) return nullptr;
  AlignedBytes bytes;
  if (std::fseek(file, 0, SEEK_END) == 0) {
    const long length = std::ftell(file);
    std::rewind(file);
    if (length > 0) {
      bytes = aligned_bytes(static_cast<size_t>(length));
      *size = std::fread(bytes.get(), 1, static_cast<size_t>(length), file);
      if (*size != static_cast<size_t>(length)) bytes.reset();
    }
  }
  std::fclose(file);
  return bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.focal\n", argv[0]);
    return 2;
  }
  size_t size = 0;
  AlignedBytes bytes = read_file(argv[1], &size);
  if (!bytes) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 1;
  }
  auto model = focal::Model::from_bytes(bytes.get(), size);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().message());
    return 1;
  }
  const focal::SessionOptions options;
  auto needed = focal::Session::required_arena_bytes(*model, options);
  if (!needed.ok()) {
    std::printf("arena: %s\n", needed.status().message());
    return 1;
  }
  AlignedBytes arena = aligned_bytes(needed.value());
  return run_self_test(*model, arena.get(), needed.value());
}
