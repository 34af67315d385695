#include "tokenizers/base64.h"

namespace focal {
namespace convert {
namespace {

// The 6-bit value of a base64 character, -1 for '=' and -2 for anything else.
int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return c == '=' ? -1 : -2;
}

}  // namespace

std::optional<std::string> decode_base64(const std::string& text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string bytes;
  bytes.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    int v[4];
    for (size_t k = 0; k < 4; ++k) v[k] = sextet(text[i + k]);
    // '=' only at the end: "xx==" or "xxx="; never in the first two places.
    const bool pad2 = v[2] == -1, pad3 = v[3] == -1;
    if (v[0] < 0 || v[1] < 0 || v[2] == -2 || v[3] == -2 || (pad2 && !pad3) || ((pad2 || pad3) && !last)) {
      return std::nullopt;
    }
    const uint32_t word = static_cast<uint32_t>(v[0]) << 18 | static_cast<uint32_t>(v[1]) << 12 |
                          static_cast<uint32_t>(pad2 ? 0 : v[2]) << 6 | static_cast<uint32_t>(pad3 ? 0 : v[3]);
    bytes.push_back(static_cast<char>(word >> 16));
    if (!pad2) bytes.push_back(static_cast<char>((word >> 8) & 0xFF));
    if (!pad3) bytes.push_back(static_cast<char>(word & 0xFF));
  }
  return bytes;
}

}  // namespace convert
}  // namespace focal
