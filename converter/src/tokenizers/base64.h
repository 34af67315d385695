// Standard base64 (RFC 4648 section 4, with '=' padding), as tokenizer.json stores the
// Precompiled normalizer's character map.
#pragma once

#include <optional>
#include <string>

namespace focal {
namespace convert {

// The bytes `text` encodes, or nothing when it is not padded base64 (a length that is
// not a multiple of 4, a character outside the alphabet, padding inside the text).
std::optional<std::string> decode_base64(const std::string& text);

}  // namespace convert
}  // namespace focal
