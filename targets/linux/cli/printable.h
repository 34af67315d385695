// Bytes from a model file (names, metadata, token text) are data: before they reach a
// terminal or a generated C++ header they pass through one of these, so a name cannot
// carry a newline that starts a line of code, close a comment, or an escape sequence
// that rewrites the terminal.
#pragma once

#include <string>
#include <string_view>

namespace focal {
namespace cli {

// Printable ASCII only: bytes 0x20..0x7e stay, except the backslash, which doubles, and
// the double quote; every other byte becomes \xNN (two hex digits). The result never
// holds a newline or a control character, a '"', "*/" (its '*' is escaped) or "??" (no
// trigraph), so it is safe in a // or /* */ comment of C++, cannot end a string literal,
// and is safe in a terminal and a log line.
std::string printable(std::string_view bytes);
// The same for at most the first `max_bytes` bytes, then "..." when there were more: for
// messages, which hold 240 characters (focal::Status).
std::string printable(std::string_view bytes, size_t max_bytes);

// Text for a terminal that may be UTF-8 (generated tokens, heatmap labels, messages):
// keeps newlines, tabs and bytes >= 0x80, and escapes as \xNN the other control
// characters (ESC among them), DEL and the UTF-8 forms of the C1 controls (U+0080 to
// U+009F), which terminals also obey.
std::string terminal_text(std::string_view bytes);

}  // namespace cli
}  // namespace focal
