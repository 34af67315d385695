// safetensors: an 8-byte little-endian header length N, N bytes of JSON mapping each
// tensor name to {dtype, shape, data_offsets: [begin, end)} relative to the byte after
// the header (plus an optional "__metadata__" of strings), then the data.
#include <cstdint>
#include <limits>

#include <nlohmann/json.hpp>

#include "readers/checkpoint.h"

namespace focal {
namespace convert {
namespace {

constexpr uint64_t kMaxHeaderBytes = 100u << 20;  // the format's own limit is 100 MB

bool parse_dtype(const std::string& name, ElementType* type) {
  static const std::pair<const char*, ElementType> kTypes[] = {
      {"F64", ElementType::kF64}, {"F32", ElementType::kF32}, {"F16", ElementType::kF16},
      {"BF16", ElementType::kBF16}, {"I64", ElementType::kI64}, {"I32", ElementType::kI32},
      {"I16", ElementType::kI16}, {"I8", ElementType::kI8}, {"U8", ElementType::kU8},
      {"BOOL", ElementType::kBool}};
  for (const auto& t : kTypes) {
    if (name == t.first) {
      *type = t.second;
      return true;
    }
  }
  return false;
}

Result<CheckpointTensor> parse_entry(const std::string& path, const std::string& name,
                                     const nlohmann::json& entry, const uint8_t* data,
                                     uint64_t data_bytes) {
  const auto fail = [&](const std::string& what) { return reader_error(path, "tensor '" + name + "': " + what); };
  if (!entry.is_object() || !entry.contains("dtype") || !entry.contains("shape") ||
      !entry.contains("data_offsets")) {
    return fail("needs dtype, shape and data_offsets");
  }
  CheckpointTensor t;
  t.name = name;
  if (!entry["dtype"].is_string() || !parse_dtype(entry["dtype"].get<std::string>(), &t.type)) {
    return fail("unsupported dtype " + entry["dtype"].dump());
  }
  if (!entry["shape"].is_array() || entry["shape"].size() > 16) return fail("shape must be a list of at most 16 dims");
  for (const auto& d : entry["shape"]) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      return fail("shape has a dim that is not an integer in [0, 2^63)");
    }
    t.shape.push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  const auto& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    return fail("data_offsets must be [begin, end]");
  }
  const uint64_t begin = offsets[0].get<uint64_t>(), end = offsets[1].get<uint64_t>();
  uint64_t expected = 0;
  if (!checked_byte_size(t.type, t.shape, &expected)) return fail("shape's byte size overflows");
  if (begin > end || end > data_bytes) {
    return fail("data [" + std::to_string(begin) + ", " + std::to_string(end) + ") lies outside the " +
                std::to_string(data_bytes) + " data bytes");
  }
  if (end - begin != expected) {
    return fail("data is " + std::to_string(end - begin) + " bytes but " + element_type_name(t.type) +
                " " + entry["shape"].dump() + " needs " + std::to_string(expected));
  }
  t.bytes.assign(data + begin, data + end);
  return t;
}

}  // namespace

Result<Checkpoint> read_safetensors(const std::string& path) {
  auto file = read_whole_file(path);
  if (!file.ok()) return file.status();
  const std::vector<uint8_t>& bytes = file.value();
  if (bytes.size() < 8) return reader_error(path, "too small for a safetensors header");
  uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = (header_bytes << 8) | bytes[static_cast<size_t>(i)];
  if (header_bytes > kMaxHeaderBytes || header_bytes > bytes.size() - 8) {
    return reader_error(path, "header length " + std::to_string(header_bytes) + " exceeds the file (" +
                                  std::to_string(bytes.size()) + " bytes) or the 100 MB limit");
  }
  const auto header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(header_bytes),
                                            nullptr, /*allow_exceptions=*/false);
  if (header.is_discarded() || !header.is_object()) {
    return reader_error(path, "header is not a JSON object");
  }
  const uint8_t* data = bytes.data() + 8 + header_bytes;
  const uint64_t data_bytes = bytes.size() - 8 - header_bytes;
  Checkpoint checkpoint;
  checkpoint.path = path;
  for (const auto& item : header.items()) {
    if (item.key() == "__metadata__") continue;
    auto tensor = parse_entry(path, item.key(), item.value(), data, data_bytes);
    if (!tensor.ok()) return tensor.status();
    checkpoint.tensors.push_back(std::move(tensor.value()));
  }
  return checkpoint;  // sorted by name: nlohmann's objects order their keys
}

}  // namespace convert
}  // namespace focal
