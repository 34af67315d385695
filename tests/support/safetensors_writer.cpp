#include "support/safetensors_writer.h"

#include <fstream>
#include <nlohmann/json.hpp>

namespace focal {
namespace testing {

void write_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors) {
  nlohmann::json header = nlohmann::json::object();
  size_t end = 0;
  for (const NamedTensor& t : tensors) {
    const size_t begin = end;
    end += t.values.size() * sizeof(float);
    header[t.name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {begin, end}}};
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  const uint64_t length = text.size();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(&length), sizeof(length));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const NamedTensor& t : tensors) {
    out.write(reinterpret_cast<const char*>(t.values.data()), static_cast<std::streamsize>(t.values.size() * sizeof(float)));
  }
}

}  // namespace testing
}  // namespace focal
