// libFuzzer: arbitrary bytes as a .focal file. Loading must refuse or accept without
// crashing or reading out of bounds; an accepted model must survive a session and its
// own self-tests (which run every op on the file's vectors).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "focal/focal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  void* copy = std::aligned_alloc(64, (size + 64) / 64 * 64);
  std::memcpy(copy, data, size);
  focal::LoadOptions options;
  options.verify_checksum = (size % 2) == 0;  // half the inputs get past the CRC to the verifier
  auto model = focal::Model::from_bytes(copy, size, options);
  if (model.ok()) {
    auto bytes = focal::Session::required_arena_bytes(*model, focal::SessionOptions());
    if (bytes.ok() && bytes.value() < (size_t(64) << 20)) {
      void* arena = std::aligned_alloc(64, (bytes.value() + 64) / 64 * 64);
      auto session = focal::Session::create(*model, focal::SessionOptions(), arena, bytes.value());
      if (session.ok()) (void)focal::run_self_tests(session.value());
      std::free(arena);
    }
    (void)focal::Tokenizer::from_model(*model);
  }
  std::free(copy);
  return 0;
}
