#include "cli/npy_outputs.h"

#include <cstring>

#include "atomic_file.h"
#include "cli/printable.h"
#include "readers/npy.h"

namespace focal {
namespace cli {
namespace {

bool is_file_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

}  // namespace

Status check_output_file_name(const char* name) {
  const size_t length = std::strlen(name);
  bool safe = length > 0 && length <= kMaxOutputNameBytes && name[0] != '.';
  for (size_t i = 0; safe && i < length; ++i) safe = is_file_name_char(name[i]);
  if (safe) return Status();
  return Status::error(StatusCode::kInvalidModel,
                       "output '%s' is not a safe file name (1 to %zu letters, digits, '_', '-' or '.', not "
                       "starting with '.'); nothing was written",
                       printable(name, 48).c_str(), kMaxOutputNameBytes);
}

Status write_npy_file(const std::string& path, convert::ElementType type, const std::vector<int64_t>& shape,
                      const void* data, size_t bytes) {
  const Result<std::vector<uint8_t>> file = convert::npy_file_bytes(type, shape, data, bytes);
  if (!file.ok()) return file.status();
  return write_file_atomically(path, file->data(), file->size());
}

}  // namespace cli
}  // namespace focal
