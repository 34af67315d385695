// libFuzzer: arbitrary bytes as a checkpoint file (the reader picks safetensors, a
// torch.save zip with its restricted unpickler, .npz or .npy by the first bytes, as
// `focal convert` does). Readers refuse or accept, never crash, leak or overread.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "readers/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/focal_fuzz_checkpoint_" + std::to_string(getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  (void)focal::convert::read_checkpoint(path);
  return 0;
}
