// The Unicode Character Database tables engine/tools/make_unicode_tables.py writes at
// build time (from Debian's unicode-data); unicode.h reads them. Sorted arrays searched
// by binary search: about 60 KiB of read-only data, linked only where a tokenizer is.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {
namespace unicode_tables {

extern const char kVersion[];  // the database's version, e.g. "15.0.0"
// (first code point << 8) | value, ascending: the value holds up to the next entry's first.
extern const uint32_t kCategoryRanges[];  // value: a Category (unicode.h)
extern const size_t kCategoryRangeCount;
extern const uint32_t kCombiningRanges[];  // value: the canonical combining class
extern const size_t kCombiningRangeCount;
extern const uint32_t kWhiteSpace[];  // the White_Space code points, ascending
extern const size_t kWhiteSpaceCount;
extern const uint32_t kLowercase[][2];  // {code point, simple lowercase}, by code point
extern const size_t kLowercaseCount;
extern const uint32_t kDecompositions[][3];  // {code point, first, second or 0}, by code point
extern const size_t kDecompositionCount;
extern const uint16_t kComposites[];  // kDecompositions indexes of primary composites, by pair
extern const size_t kCompositeCount;

}  // namespace unicode_tables
}  // namespace tokenizer
}  // namespace focal
