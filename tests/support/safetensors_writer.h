// Writes f32 tensors as a safetensors file (8-byte little-endian header length, the JSON
// header, then the data), for tests that make checkpoints of their own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace focal {
namespace testing {

struct NamedTensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;  // row-major, as many as the shape holds
};

// Little-endian hosts only (every host the converter runs on).
void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors);

}  // namespace testing
}  // namespace focal
