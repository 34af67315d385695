#include "apps/tokenizer/charsmap.h"

#include <cstring>

namespace focal {
namespace tokenizer {
namespace {

// A Darts-clone unit (darts.h's DoubleArrayUnit, as SentencePiece stores it): bits 0-7 the
// label of the edge into this node, bit 8 "a key ends here" (its value sits in the unit
// at the child base), bit 9 whether the offset is shifted by 8, bits 10-31 the offset
// from this node's index to its children's block; a value unit has bit 31 set and the
// value (a byte offset into the strings) in bits 0-30. A value unit's label has bit 31
// set, so no text byte ever leads into one.
constexpr uint32_t kValueBit = 1u << 31;
uint32_t unit_offset(uint32_t u) { return (u >> 10) << ((u & (1u << 9)) >> 6); }
uint32_t unit_label(uint32_t u) { return u & (kValueBit | 0xFFu); }
bool unit_has_leaf(uint32_t u) { return ((u >> 8) & 1u) != 0; }
uint32_t unit_value(uint32_t u) { return u & ~kValueBit; }

uint32_t read_u32_le(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

uint32_t unit_at(const Charsmap& map, size_t index) { return read_u32_le(map.units + 4 * index); }

// Darts-clone lays units out in blocks of 256, so a node's children (base ^ label) lie in
// the array exactly when its base does.
constexpr size_t kBlockUnits = 256;

// SentencePiece keeps the first 32 keys a prefix search finds (Normalizer's
// kMaxTrieResultsSize; its builder makes sure no text has more) and takes the longest.
constexpr size_t kMaxPrefixResults = 32;

// What replaces the text at one position: `bytes` of `text`, consuming `consumed` input bytes.
struct Replacement {
  const char* text;
  size_t bytes;
  size_t consumed;
};

// The longest key text[0, bytes) begins with (a common prefix search: one edge per
// byte, a key ending wherever a node has a leaf); false when none. Every index read is
// checked against the array, whatever check_charsmap found.
bool longest_key(const Charsmap& map, const char* text, size_t bytes, Replacement* found) {
  size_t node = unit_offset(unit_at(map, 0));  // the root's child base (root index 0)
  size_t results = 0;
  for (size_t i = 0; i < bytes && results < kMaxPrefixResults; ++i) {
    const uint8_t c = static_cast<uint8_t>(text[i]);
    node ^= c;
    if (node >= map.unit_count) break;
    const uint32_t u = unit_at(map, node);
    if (unit_label(u) != c) break;
    node ^= unit_offset(u);
    if (!unit_has_leaf(u)) continue;
    if (node >= map.unit_count) break;
    const uint32_t value = unit_value(unit_at(map, node));
    if (value >= map.string_bytes) break;
    ++results;
    found->text = map.strings + value;
    found->bytes = std::strlen(found->text);  // check_charsmap: the strings end in a NUL
    found->consumed = i + 1;
  }
  return results > 0;
}

bool is_trail(uint8_t b) { return (b & 0xC0) == 0x80; }

// The length of the valid UTF-8 character at text[0] (SentencePiece's DecodeUTF8: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 when it is malformed.
size_t valid_char_bytes(const char* text, size_t bytes) {
  const auto b = [&](size_t k) { return static_cast<uint8_t>(text[k]); };
  if (b(0) < 0x80) return 1;
  uint32_t cp = 0;
  size_t length = 0;
  if ((b(0) & 0xE0) == 0xC0) {
    length = 2;
    cp = b(0) & 0x1Fu;
  } else if ((b(0) & 0xF0) == 0xE0) {
    length = 3;
    cp = b(0) & 0x0Fu;
  } else if ((b(0) & 0xF8) == 0xF0) {
    length = 4;
    cp = b(0) & 0x07u;
  } else {
    return 0;
  }
  if (length > bytes) return 0;
  for (size_t k = 1; k < length; ++k) {
    if (!is_trail(b(k))) return 0;
    cp = (cp << 6) | (b(k) & 0x3Fu);
  }
  static const uint32_t kLeast[5] = {0, 0, 0x80, 0x800, 0x10000};
  const bool scalar = cp < 0xD800 || (cp >= 0xE000 && cp <= 0x10FFFF);
  return cp >= kLeast[length] && scalar ? length : 0;
}

// SentencePiece's NormalizePrefix: the longest key's string, else one character as it is,
// else (a malformed byte) U+FFFD for that one byte.
Replacement normalize_prefix(const Charsmap& map, const char* text, size_t bytes) {
  Replacement r{text, 0, 0};
  if (longest_key(map, text, bytes, &r)) return r;
  const size_t length = valid_char_bytes(text, bytes);
  if (length == 0) return Replacement{"\xEF\xBF\xBD", 3, 1};
  return Replacement{text, length, length};
}

const char kSpaceSymbol[] = "\xE2\x96\x81";  // U+2581

}  // namespace

Charsmap charsmap_parts(const uint8_t* blob, size_t bytes) {
  const size_t trie_bytes = read_u32_le(blob);
  Charsmap map;
  map.units = blob + 4;
  map.unit_count = trie_bytes / 4;
  map.strings = reinterpret_cast<const char*>(blob + 4 + trie_bytes);
  map.string_bytes = bytes - 4 - trie_bytes;
  return map;
}

Result<Charsmap> check_charsmap(const uint8_t* blob, size_t bytes) {
  const auto refuse = [](const char* why) {
    return Status::error(StatusCode::kInvalidModel, "the tokenizer's character map is broken: %s", why);
  };
  if (blob == nullptr || bytes <= 4) return refuse("shorter than its trie size");
  const size_t trie_bytes = read_u32_le(blob);
  if (trie_bytes >= bytes - 4) return refuse("the trie size leaves no strings");
  if (trie_bytes == 0 || trie_bytes % (4 * kBlockUnits) != 0) return refuse("the trie is not whole blocks of 256 units");
  const Charsmap map = charsmap_parts(blob, bytes);
  if (map.strings[map.string_bytes - 1] != '\0') return refuse("the last string has no NUL");
  for (size_t j = 0; j < map.unit_count; ++j) {
    const uint32_t u = unit_at(map, j);
    if ((u & kValueBit) != 0) continue;  // a value unit: checked from its node below
    const size_t base = j ^ unit_offset(u);
    if (base >= map.unit_count) return refuse("a node's children lie outside the trie");
    if (!unit_has_leaf(u)) continue;
    const uint32_t value = unit_at(map, base);
    if ((value & kValueBit) == 0 || unit_value(value) >= map.string_bytes) {
      return refuse("a key's value is not an offset into the strings");
    }
  }
  return map;
}

Result<size_t> normalize_with_charsmap(const Charsmap& map, const char* text, size_t bytes, SentencePieceFlags flags,
                                       char* out) {
  const size_t capacity = charsmap_normalized_bytes(bytes);
  size_t i = 0;
  if (flags.remove_extra_whitespaces) {  // leading spaces, as the map makes them
    while (i < bytes) {
      const Replacement r = normalize_prefix(map, text + i, bytes - i);
      if (r.bytes != 1 || r.text[0] != ' ') break;
      i += r.consumed;
    }
  }
  if (i == bytes) return size_t{0};
  size_t n = 0;
  if (flags.add_dummy_prefix) {
    std::memcpy(out, kSpaceSymbol, 3);
    n = 3;
  }
  bool after_space = flags.remove_extra_whitespaces;  // the dummy prefix counts as one
  while (i < bytes) {
    Replacement r = normalize_prefix(map, text + i, bytes - i);
    i += r.consumed;
    while (after_space && r.bytes > 0 && r.text[0] == ' ') {
      ++r.text;
      --r.bytes;
    }
    if (r.bytes == 0) continue;  // after_space stays as it was
    size_t escaped = r.bytes;
    for (size_t k = 0; k < r.bytes; ++k) escaped += r.text[k] == ' ' ? 2 : 0;
    if (escaped > capacity - n) {
      return Status::error(StatusCode::kInvalidModel, "the tokenizer's character map grows text over %zu-fold",
                           kMaxCharsmapGrowth);
    }
    for (size_t k = 0; k < r.bytes; ++k) {
      if (r.text[k] == ' ') {
        std::memcpy(out + n, kSpaceSymbol, 3);
        n += 3;
      } else {
        out[n++] = r.text[k];
      }
    }
    after_space = flags.remove_extra_whitespaces && r.text[r.bytes - 1] == ' ';
  }
  if (flags.remove_extra_whitespaces) {  // trailing U+2581s, whatever made them
    while (n >= 3 && std::memcmp(out + n - 3, kSpaceSymbol, 3) == 0) n -= 3;
  }
  return n;
}

}  // namespace tokenizer
}  // namespace focal
