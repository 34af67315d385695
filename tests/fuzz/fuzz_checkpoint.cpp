// libFuzzer: arbitrary bytes as a checkpoint file (the reader picks safetensors, a
// torch.save zip with its restricted unpickler, .npz or .npy by the first bytes, as
// `focal convert` does). Readers refuse or accept, never crash, leak or overread.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "readers/checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // HDF5 files go to Debian's libhdf5, a large third-party parser with its own history of
  // malformed-file bugs: fuzzing it here would test that library, not ours, and a finding
  // there is not ours to fix in this repository. Our code around it bounds sizes first.
  if (size >= 8 && std::memcmp(data, "\x89HDF\r\n\x1a\n", 8) == 0) return 0;
  static const std::string path = "/tmp/focal_fuzz_checkpoint_" + std::to_string(getpid());
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(data, 1, size, f);
  std::fclose(f);
  // A Keras 3 archive's weights are HDF5 as well: its zip is ours to fuzz, the member not.
  if (focal::convert::is_keras_archive(path)) return 0;
  (void)focal::convert::read_checkpoint(path);
  return 0;
}
