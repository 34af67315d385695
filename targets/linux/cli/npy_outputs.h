// Arrays the CLI writes as .npy files (`focal run` outputs, `focal generate
// --attention-out`, `focal attention` matrices): written atomically (atomic_file.h), and
// for names that come from a model file, only names that are a safe file name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "focal/status.h"
#include "readers/checkpoint.h"

namespace focal {
namespace cli {

// Longest output name taken as a file name: NAME_MAX (255) less ".npy" and room to spare.
constexpr size_t kMaxOutputNameBytes = 200;

// A model's output name becomes DIR/<name>.npy only when it is one safe path component:
// 1 to kMaxOutputNameBytes of letters, digits, '_', '-' and '.', not starting with '.'
// (so never "..", a hidden file or a path). Others are refused, not renamed, so a file
// name always equals its output's name.
Status check_output_file_name(const char* name);

// Writes a little-endian, C-order .npy atomically.
Status write_npy_file(const std::string& path, convert::ElementType type, const std::vector<int64_t>& shape,
                      const void* data, size_t bytes);

}  // namespace cli
}  // namespace focal
