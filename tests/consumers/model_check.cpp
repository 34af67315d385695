// A program built outside the focal repository against an installed prefix (through
// find_package(focal) or `pkg-config focal`): it loads the .focal file named on the
// command line, runs the self-test stored in it (expected outputs from PyTorch in float64
// or the converter's float64 reference) and prints every output of the last case.
// Exit status 0 only if the model loads and every self-test case passes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "focal/focal.h"

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

void print_output(const focal::TensorView& out) {
  std::printf("%s [", out.name);
  for (int d = 0; d < out.shape.rank; ++d) std::printf(d ? ", %ld" : "%ld", static_cast<long>(out.shape.dims[d]));
  std::printf("]:");
  const int64_t count = out.shape.element_count();
  for (int64_t i = 0; i < count && i < 8; ++i) std::printf(" %.6f", static_cast<double>(out.as<float>()[i]));
  std::printf("%s\n", count > 8 ? " ..." : "");
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
  auto session = focal::Session::create(*model, options, arena.get(), needed.value());
  if (!session.ok()) {
    std::printf("session failed: %s\n", session.status().message());
    return 1;
  }
  auto report = focal::run_self_tests(session.value());
  if (!report.ok()) {
    std::printf("self-test could not run: %s\n", report.status().message());
    return 1;
  }
  for (int i = 0; i < session->output_count(); ++i) {
    if (session->output(i).dtype == focal::DType::kF32) print_output(session->output(i));
  }
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  std::printf("%s: %lu bytes, self-test %s (%d cases, max abs error %.3g)\n", model->architecture(),
              static_cast<unsigned long>(size), passed ? "PASS" : "FAIL", report->cases,
              static_cast<double>(report->max_abs_error));
  return passed ? 0 : 1;
}
