#include "npy_mutator.h"

#include <cstring>
#include <string>

namespace focal {
namespace fuzz {
namespace {

constexpr size_t kMagicBytes = 6;  // "\x93NUMPY"

// Replaces what follows `key` up to `end` (exclusive) with `value`; false when absent.
bool replace_after(std::string& header, const std::string& key, char end,
                   const std::string& value) {
  const size_t at = header.find(key);
  if (at == std::string::npos) return false;
  const size_t from = at + key.size();
  const size_t to = header.find(end, from);
  if (to == std::string::npos) return false;
  header.replace(from, to - from, value);
  return true;
}

std::string random_shape(Random& random) {
  static const char* const kShapes[] = {"",
                                        "0,",
                                        "-1,",
                                        "3, 4",
                                        "4294967296, 4294967296",
                                        "9223372036854775807,",
                                        "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
                                        "3,, 4",
                                        "x",
                                        "65536, 65536, 65536"};
  if (random.one_in(3)) return std::to_string(interesting_integer(random)) + ",";
  return kShapes[random.below(sizeof(kShapes) / sizeof(kShapes[0]))];
}

std::string random_descr(Random& random) {
  static const char* const kDescrs[] = {"<f4", "<f8", "<f2", "<i8", "<i4", "|i1", "|u1",  "|b1",
                                        "<u2", ">f4", "|O",  "<c8", "<V4", "",    "<f16", "<M8"};
  return kDescrs[random.below(sizeof(kDescrs) / sizeof(kDescrs[0]))];
}

}  // namespace

std::vector<uint8_t> mutate_npy(const std::vector<uint8_t>& file, Random& random) {
  if (file.size() < kMagicBytes + 4 || std::memcmp(file.data(), "\x93NUMPY", kMagicBytes) != 0)
    return {};
  const uint8_t major = file[kMagicBytes];
  const size_t length_bytes = major == 1 ? 2 : 4;
  if (file.size() < kMagicBytes + 2 + length_bytes) return {};
  size_t header_bytes = 0;
  for (size_t i = 0; i < length_bytes; ++i)
    header_bytes |= size_t(file[kMagicBytes + 2 + i]) << (8 * i);
  const size_t start = kMagicBytes + 2 + length_bytes;
  if (header_bytes > file.size() - start) return {};
  std::string header(reinterpret_cast<const char*>(file.data() + start), header_bytes);
  std::vector<uint8_t> data(file.begin() + static_cast<std::ptrdiff_t>(start + header_bytes),
                            file.end());

  size_t length_lie = 0;
  switch (random.below(6)) {
    case 0:
    case 1:
      replace_after(header, "'shape': (", ')', random_shape(random));
      break;
    case 2:
      replace_after(header, "'descr': '", '\'', random_descr(random));
      break;
    case 3:
      if (!replace_after(header, "'fortran_order': ", ',', "True")) break;
      if (random.one_in(2))
        replace_after(header, "'fortran_order': ", ',', random.one_in(2) ? "1" : "None");
      break;
    case 4:
      length_lie = 1 + random.below(16);
      break;
    default:
      if (!data.empty()) data[random.below(data.size())] = static_cast<uint8_t>(random.next());
      break;
  }
  std::vector<uint8_t> out(file.begin(),
                           file.begin() + static_cast<std::ptrdiff_t>(kMagicBytes + 2));
  const size_t length = header.size() + length_lie;
  for (size_t i = 0; i < length_bytes; ++i) out.push_back(static_cast<uint8_t>(length >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

}  // namespace fuzz
}  // namespace focal
