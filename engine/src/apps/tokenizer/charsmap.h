// SentencePiece's precompiled character map (NormalizerSpec.precompiled_charsmap: the
// nmt_nfkc and nfkc tables of T5, XLM-R, ALBERT, mT5 and models trained with
// SentencePiece's default normalization) and the whitespace handling that comes with it.
//
// The blob, as SentencePiece's Normalizer::EncodePrecompiledCharsMap writes it: a
// little-endian u32 byte size of the trie, the trie (a Darts-clone double array of u32
// units), then the replacement strings, each ended by a NUL. The trie maps a byte string
// (one or a few UTF-8 characters) to the offset of its replacement.
//
// Normalization (SentencePiece's src/normalizer.cc, Normalizer::Normalize and
// NormalizePrefix; the tokenizers crate's Precompiled normalizer reads the same blob): at
// each position the longest key the text begins with is replaced by its string; with no
// key one UTF-8 character is copied, a malformed byte becoming U+FFFD. Spaces of the
// result become U+2581, one U+2581 goes before the text (add_dummy_prefix), and with
// remove_extra_whitespaces spaces are dropped at both ends and runs of them made one, all
// judged on the replaced text (a tab the map makes a space is a space).
//
// Written for focal from those descriptions and the Darts-clone unit layout; no code was
// taken from either project.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/status.h"

namespace focal {
namespace tokenizer {

// Normalized text is at most this many bytes per text byte, plus 3 for the dummy prefix.
// nmt_nfkc's largest growth is U+FDFA (3 bytes) becoming 18 characters with 3 spaces, 39
// bytes once the spaces are U+2581: 13 per byte. A map that grows text more is refused
// when it does (encode returns kInvalidModel), never written past the scratch.
constexpr size_t kMaxCharsmapGrowth = 16;
constexpr size_t charsmap_normalized_bytes(size_t bytes) { return kMaxCharsmapGrowth * bytes + 3; }

// A view of a checked blob (check_charsmap); it does not own the bytes.
struct Charsmap {
  const uint8_t* units = nullptr;  // the double array, 4 bytes a unit, little-endian
  size_t unit_count = 0;
  const char* strings = nullptr;   // replacement strings, the last byte a NUL
  size_t string_bytes = 0;
};

// The blob's parts, checked so that a search can never leave them: sizes that add up, a
// trie of whole units (a multiple of 256, as Darts-clone lays out its blocks), every
// unit's child block inside the trie, every leaf's value unit a value whose string offset
// lies inside the strings, and the strings ending in a NUL. kInvalidModel naming the
// first fault; the search still checks every index it reads.
Result<Charsmap> check_charsmap(const uint8_t* blob, size_t bytes);

// The parts of a blob check_charsmap() accepted, without checking again (O(1)).
Charsmap charsmap_parts(const uint8_t* blob, size_t bytes);

struct SentencePieceFlags {
  bool add_dummy_prefix = true;
  bool remove_extra_whitespaces = true;
};

// Writes the normalized text of text[0, bytes) to `out` (charsmap_normalized_bytes(bytes)
// long) and returns its length; kInvalidModel when the map grows the text beyond that.
Result<size_t> normalize_with_charsmap(const Charsmap& map, const char* text, size_t bytes, SentencePieceFlags flags,
                                       char* out);

}  // namespace tokenizer
}  // namespace focal
