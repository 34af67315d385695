// NumPy .npy arrays: the header parser shared by the .npy and .npz readers, and a
// writer (for `focal run` outputs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"
#include "readers/checkpoint.h"

namespace focal {
namespace convert {

constexpr size_t kMaxNpyHeader = 1 << 16;

struct NpyHeader {
  ElementType type;
  bool fortran_order;
  std::vector<int64_t> shape;
  size_t header_bytes;  // magic through the end of the header text
};

Result<NpyHeader> parse_npy_header(const std::string& where, const uint8_t* bytes, size_t size);

// The array named `name` from its header and `data_bytes` of data (row-major result).
Result<CheckpointTensor> make_npy_tensor(const std::string& where, const std::string& name,
                                         const NpyHeader& header, const uint8_t* data,
                                         size_t data_bytes);

// A little-endian, C-order .npy (version 1.0) file's bytes, for writers that place them
// themselves (the CLI writes files atomically).
Result<std::vector<uint8_t>> npy_file_bytes(ElementType type, const std::vector<int64_t>& shape, const void* data,
                                            size_t bytes);

// Writes a little-endian, C-order .npy (version 1.0).
Status write_npy(const std::string& path, ElementType type, const std::vector<int64_t>& shape,
                 const void* data, size_t bytes);

}  // namespace convert
}  // namespace focal
