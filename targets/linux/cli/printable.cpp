#include "cli/printable.h"

namespace focal {
namespace cli {
namespace {

void append_hex_escape(unsigned char byte, std::string* out) {
  static const char kHex[] = "0123456789abcdef";
  *out += "\\x";
  *out += kHex[byte >> 4];
  *out += kHex[byte & 0xf];
}

bool is_printable_ascii(unsigned char byte) { return byte >= 0x20 && byte < 0x7f; }

}  // namespace

std::string printable(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char byte = static_cast<unsigned char>(bytes[i]);
    const char next = i + 1 < bytes.size() ? bytes[i + 1] : '\0';
    const bool closes_comment = byte == '*' && next == '/';
    const bool starts_trigraph = byte == '?' && next == '?';
    if (byte == '\\') {
      out += "\\\\";
    } else if (!is_printable_ascii(byte) || byte == '"' || closes_comment || starts_trigraph) {
      append_hex_escape(byte, &out);
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

std::string printable(std::string_view bytes, size_t max_bytes) {
  if (bytes.size() <= max_bytes) return printable(bytes);
  return printable(bytes.substr(0, max_bytes)) + "...";
}

std::string terminal_text(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i) {
    const unsigned char byte = static_cast<unsigned char>(bytes[i]);
    const unsigned char next = i + 1 < bytes.size() ? static_cast<unsigned char>(bytes[i + 1]) : 0;
    if (byte == 0xc2 && next >= 0x80 && next <= 0x9f) {  // U+0080..U+009F, the C1 controls
      append_hex_escape(byte, &out);
      append_hex_escape(next, &out);
      ++i;
    } else if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
      append_hex_escape(byte, &out);
    } else {
      out += static_cast<char>(byte);
    }
  }
  return out;
}

}  // namespace cli
}  // namespace focal
