// Chooses the reader for a checkpoint file by its first bytes.
#include <cstring>
#include <fstream>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {

Result<Checkpoint> read_checkpoint(const std::string& path) {
  FOCAL_RETURN_IF_ERROR(check_regular_file(path));
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(StatusCode::kIoError, "cannot open %s", path.c_str());
  unsigned char magic[8] = {};
  in.read(reinterpret_cast<char*>(magic), sizeof(magic));
  const std::streamsize got = in.gcount();
  if (got >= 4 && std::memcmp(magic, "PK\x03\x04", 4) == 0) {
    // Keras 3 archives, torch.save archives and .npz files are all zips: look inside.
    if (is_keras_archive(path)) return read_keras_archive(path);
    Result<Checkpoint> pytorch = read_pytorch(path);
    if (pytorch.ok() || std::strstr(pytorch.status().message(), "no data.pkl") == nullptr) {
      return pytorch;
    }
    return read_npz(path);
  }
  if (got >= 6 && std::memcmp(magic, "\x93NUMPY", 6) == 0) return read_npy(path);
  if (got >= 8 && std::memcmp(magic, "\x89HDF\r\n\x1a\n", 8) == 0) return read_hdf5(path);
  if (got >= 2 && magic[0] == 0x80 && magic[1] <= 5) {
    return reader_error(path, "a legacy (non-zip) torch.save file; re-save it with a current "
                              "PyTorch: torch.save(torch.load(path), path) writes the zip format");
  }
  return read_safetensors(path);
}

}  // namespace convert
}  // namespace focal
