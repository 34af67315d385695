// safetensors: an 8-byte little-endian header length N, N bytes of JSON mapping each
// tensor name to {dtype, shape, data_offsets: [begin, end)} relative to the byte after
// the header (plus an optional "__metadata__" of strings), then the data. The file is
// mapped, not read: tensors are views into the mapping until the converter takes them.
// As the format requires, the tensors' byte ranges tile the data section exactly (no
// overlap, no gap, nothing after) and no key appears twice, in the header or in an entry.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "json/json_file.h"
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

// The header as JSON, or an error naming a key that appears twice in one object (a
// JSON parser keeps one of them silently, so two tensors could hide behind one name).
Result<nlohmann::json> parse_header(const std::string& path, const uint8_t* text, size_t size) {
  std::vector<std::set<std::string>> keys_of_open_objects;
  std::string duplicate;
  const nlohmann::json::parser_callback_t note_keys = [&](int, nlohmann::json::parse_event_t event,
                                                          nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys_of_open_objects.emplace_back();
    if (event == Event::object_end && !keys_of_open_objects.empty()) keys_of_open_objects.pop_back();
    if (event == Event::key && !keys_of_open_objects.empty() && parsed.is_string() &&
        !keys_of_open_objects.back().insert(parsed.get<std::string>()).second && duplicate.empty()) {
      duplicate = parsed.get<std::string>();
    }
    return true;
  };
  Result<nlohmann::json> parsed =
      parse_json(reinterpret_cast<const char*>(text), size, "the safetensors header of '" + path + "'", note_keys);
  if (!parsed.ok()) return parsed.status();
  nlohmann::json header = std::move(parsed).value();
  if (!header.is_object()) return reader_error(path, "header is not a JSON object");
  if (!duplicate.empty()) return reader_error(path, "header names key '" + duplicate + "' twice");
  return header;
}

struct Range {
  uint64_t begin, end;
  std::string name;
};

// The tensors' byte ranges must tile [0, data_bytes): sorted, each begins where the
// previous one ended, and the last ends at the end of the file.
Status check_tiling(const std::string& path, std::vector<Range> ranges, uint64_t data_bytes) {
  std::sort(ranges.begin(), ranges.end(),
            [](const Range& a, const Range& b) { return a.begin != b.begin ? a.begin < b.begin : a.end < b.end; });
  uint64_t covered = 0;
  for (size_t i = 0; i < ranges.size(); ++i) {
    const Range& r = ranges[i];
    if (r.begin < covered) {
      return reader_error(path, "tensor '" + r.name + "' data [" + std::to_string(r.begin) + ", " +
                                    std::to_string(r.end) + ") overlaps tensor '" + ranges[i - 1].name + "'");
    }
    if (r.begin > covered) {
      return reader_error(path, "data bytes [" + std::to_string(covered) + ", " + std::to_string(r.begin) +
                                    ") belong to no tensor");
    }
    covered = r.end;
  }
  if (covered != data_bytes) {
    return reader_error(path, "data bytes [" + std::to_string(covered) + ", " + std::to_string(data_bytes) +
                                  ") belong to no tensor");
  }
  return Status();
}

// The dims of an entry's "shape"; empty, or what is wrong with it.
std::string json_dims(const nlohmann::json& shape, std::vector<int64_t>* dims) {
  if (!shape.is_array() || shape.size() > 16) return "shape must be a list of at most 16 dims";
  for (const auto& d : shape) {
    if (!d.is_number_unsigned() || d.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) {
      return "shape has a dim that is not an integer in [0, 2^63)";
    }
    dims->push_back(static_cast<int64_t>(d.get<uint64_t>()));
  }
  return std::string();
}

// An entry's "data_offsets" [begin, end] as two unsigned integers, or false.
bool json_range(const nlohmann::json& offsets, uint64_t* begin, uint64_t* end) {
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    return false;
  }
  *begin = offsets[0].get<uint64_t>();
  *end = offsets[1].get<uint64_t>();
  return true;
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
  const std::string bad_shape = json_dims(entry["shape"], &t.shape);
  if (!bad_shape.empty()) return fail(bad_shape);
  uint64_t begin = 0, end = 0;
  if (!json_range(entry["data_offsets"], &begin, &end)) return fail("data_offsets must be [begin, end]");
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
  t.view = data + begin;
  t.view_bytes = static_cast<size_t>(end - begin);  // <= data_bytes, which fits size_t
  return t;
}

}  // namespace

Result<Checkpoint> read_safetensors(const std::string& path) {
  auto file = map_whole_file(path);
  if (!file.ok()) return file.status();
  const uint8_t* const bytes = file->data;
  const size_t size = file->size;
  if (size < 8) return reader_error(path, "too small for a safetensors header");
  uint64_t header_bytes = 0;
  for (int i = 7; i >= 0; --i) header_bytes = (header_bytes << 8) | bytes[static_cast<size_t>(i)];
  if (header_bytes > kMaxHeaderBytes || header_bytes > size - 8) {
    return reader_error(path, "header length " + std::to_string(header_bytes) + " exceeds the file (" +
                                  std::to_string(size) + " bytes) or the 100 MB limit");
  }
  auto header = parse_header(path, bytes + 8, static_cast<size_t>(header_bytes));
  if (!header.ok()) return header.status();
  const uint8_t* data = bytes + 8 + header_bytes;
  const uint64_t data_bytes = size - 8 - header_bytes;
  Checkpoint checkpoint;
  checkpoint.path = path;
  std::vector<Range> ranges;
  for (const auto& item : header->items()) {
    if (item.key() == "__metadata__") continue;
    auto tensor = parse_entry(path, item.key(), item.value(), data, data_bytes);
    if (!tensor.ok()) return tensor.status();
    const uint64_t begin = static_cast<uint64_t>(tensor->view - data);
    ranges.push_back({begin, begin + tensor->view_bytes, item.key()});
    tensor->mapping = file->owner;
    checkpoint.tensors.push_back(std::move(tensor.value()));
  }
  FOCAL_RETURN_IF_ERROR(check_tiling(path, std::move(ranges), data_bytes));
  return checkpoint;  // sorted by name: nlohmann's objects order their keys
}

}  // namespace convert
}  // namespace focal
