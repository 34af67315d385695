#include "safetensors_mutator.h"

#include <cstring>
#include <nlohmann/json.hpp>
#include <string>

namespace focal {
namespace fuzz {
namespace {

using nlohmann::json;

constexpr size_t kLengthBytes = 8;

// JSON text; invalid UTF-8 from interesting_text becomes U+FFFD instead of an exception.
std::string text_of(const json& value) {
  return value.dump(-1, ' ', false, json::error_handler_t::replace);
}

json interesting_json_number(Random& random) {
  switch (random.below(6)) {
    case 0:
      return -1;
    case 1:
      return 1.5;
    case 2:
      return "3";
    case 3:
      return static_cast<int64_t>(interesting_integer(random));
    default:
      return interesting_integer(random);
  }
}

json random_dtype(Random& random) {
  static const char* const kNames[] = {"F64", "F32", "F16",  "BF16", "I64",     "I32", "I16",
                                       "I8",  "U8",  "BOOL", "U16",  "F8_E4M3", "f32", ""};
  if (random.one_in(8)) return 7;
  return kNames[random.below(sizeof(kNames) / sizeof(kNames[0]))];
}

void mutate_shape(json& entry, Random& random) {
  json& shape = entry["shape"];
  if (!shape.is_array() || random.one_in(8)) {
    shape = random.one_in(2) ? json::array() : json(4);
    return;
  }
  const size_t n = shape.size();
  switch (random.below(4)) {
    case 0:
      if (n > 0) shape[random.below(n)] = interesting_json_number(random);
      break;
    case 1:
      shape.push_back(random.one_in(2) ? json(1) : interesting_json_number(random));
      break;
    case 2:
      if (n > 0) shape.erase(shape.begin() + static_cast<std::ptrdiff_t>(random.below(n)));
      break;
    default:
      for (size_t i = 0; i < 17; ++i) shape.push_back(1);
      break;  // more dims than allowed
  }
}

void mutate_offsets(json& entry, const json& header, Random& random) {
  json& offsets = entry["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2) {
    offsets = json::array({0, 0});
  }
  switch (random.below(5)) {
    case 0:
      offsets[random.below(2)] = interesting_json_number(random);
      break;
    case 1:
      std::swap(offsets[0], offsets[1]);
      break;
    case 2: {  // another tensor's range: two tensors over the same bytes
      for (const auto& item : header.items()) {
        if (item.value().is_object() && item.value().contains("data_offsets") && random.one_in(2)) {
          offsets = item.value()["data_offsets"];
        }
      }
      break;
    }
    case 3:
      if (offsets[0].is_number_unsigned() && offsets[1].is_number_unsigned()) {
        offsets[1] =
            offsets[1].get<uint64_t>() + 1 + random.below(8);  // past its end, into the next
      }
      break;
    default:
      offsets.push_back(0);
      break;
  }
}

// The JSON with the first entry repeated before the others: nlohmann keeps one of two
// equal keys, so the duplicate is written as text.
std::string with_duplicate_key(const json& header, Random& random) {
  std::string text = text_of(header);
  if (header.empty() || text.size() < 2) return text;
  auto it = header.begin();
  for (size_t skip = random.below(header.size()); skip > 0; --skip) ++it;
  json copy = it.value();
  if (copy.is_object() && copy.contains("data_offsets") && random.one_in(2))
    copy["data_offsets"] = json::array({0, 0});
  return "{" + text_of(json(it.key())) + ":" + text_of(copy) + "," + text.substr(1);
}

}  // namespace

std::vector<uint8_t> mutate_safetensors(const std::vector<uint8_t>& file, Random& random) {
  if (file.size() < kLengthBytes) return {};
  uint64_t header_bytes = 0;
  std::memcpy(&header_bytes, file.data(), kLengthBytes);  // little-endian
  if (header_bytes > file.size() - kLengthBytes) return {};
  const char* text = reinterpret_cast<const char*>(file.data() + kLengthBytes);
  json header = json::parse(text, text + header_bytes, nullptr, false);
  if (header.is_discarded() || !header.is_object()) return {};
  std::vector<uint8_t> data(file.begin() + static_cast<std::ptrdiff_t>(kLengthBytes + header_bytes),
                            file.end());

  std::vector<std::string> names;
  for (const auto& item : header.items()) {
    if (item.key() != "__metadata__") names.push_back(item.key());
  }
  std::string new_header;
  int64_t length_lie = 0;
  const size_t choice = random.below(10);
  if (!names.empty() && choice < 6) {
    json& entry = header[names[random.below(names.size())]];
    if (!entry.is_object()) entry = json::object();
    switch (choice) {
      case 0:
        entry["dtype"] = random_dtype(random);
        break;
      case 1:
      case 2:
        mutate_shape(entry, random);
        break;
      case 3:
      case 4:
        mutate_offsets(entry, header, random);
        break;
      default: {
        static const char* const kFields[] = {"dtype", "shape", "data_offsets"};
        entry.erase(kFields[random.below(3)]);
        break;
      }
    }
  } else if (choice == 6) {
    new_header = with_duplicate_key(header, random);
  } else if (choice == 7) {
    header["__metadata__"] =
        random.one_in(2) ? json(interesting_text(random)) : json::object({{"format", 1}});
  } else if (choice == 8) {
    length_lie = random.one_in(2) ? static_cast<int64_t>(random.below(9)) - 4
                                  : static_cast<int64_t>(interesting_integer(random));
  } else if (!data.empty()) {
    const uint32_t value = float_bits(interesting_float(random));
    const size_t at = random.below(data.size());
    std::memcpy(data.data() + at, &value, std::min<size_t>(4, data.size() - at));
  }
  if (new_header.empty()) new_header = text_of(header);
  if (random.one_in(4))
    new_header.append(random.below(16), ' ');  // the format allows trailing spaces

  std::vector<uint8_t> out(kLengthBytes);
  const uint64_t length =
      static_cast<uint64_t>(new_header.size()) + static_cast<uint64_t>(length_lie);
  std::memcpy(out.data(), &length, kLengthBytes);
  out.insert(out.end(), new_header.begin(), new_header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace fuzz
}  // namespace focal
