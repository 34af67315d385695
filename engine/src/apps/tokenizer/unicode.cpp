#include "apps/tokenizer/unicode.h"

#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/unicode_tables.h"

namespace focal {
namespace tokenizer {
namespace {

namespace ut = unicode_tables;

// The value of the range holding cp in a (first << 8) | value table.
uint8_t range_value(const uint32_t* ranges, size_t count, uint32_t cp) {
  size_t lo = 0, hi = count;  // the last entry whose first is <= cp
  while (hi - lo > 1) {
    const size_t mid = (lo + hi) / 2;
    if ((ranges[mid] >> 8) <= cp) lo = mid; else hi = mid;
  }
  return static_cast<uint8_t>(ranges[lo] & 0xFF);
}

// The row of a {code point, ...} table sorted by code point, or -1.
template <size_t Columns>
long find_row(const uint32_t (*rows)[Columns], size_t count, uint32_t cp) {
  size_t lo = 0, hi = count;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (rows[mid][0] == cp) return static_cast<long>(mid);
    if (rows[mid][0] < cp) lo = mid + 1; else hi = mid;
  }
  return -1;
}

// Hangul syllables decompose and compose by arithmetic (Unicode 15.0, section 3.12).
constexpr uint32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr uint32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = kVCount * kTCount, kSCount = kLCount * kNCount;

// A malformed UTF-8 byte travels through normalization as this bit and its value: a
// starter that composes with nothing and is written back as the byte it was.
constexpr uint32_t kRawByte = 0x80000000u;
// During reordering each word carries its combining class above the code point's 21 bits.
constexpr uint32_t kClassShift = 22;

uint32_t with_class(uint32_t cp) { return cp | (uint32_t{combining_class(cp)} << kClassShift); }
uint32_t class_of(uint32_t word) { return (word >> kClassShift) & 0xFF; }
uint32_t code_point_of(uint32_t word) { return word & ((1u << kClassShift) - 1); }

// Appends the full canonical decomposition of cp (with classes) to out; returns the count.
size_t decompose(uint32_t cp, uint32_t* out) {
  if (cp >= kSBase && cp < kSBase + kSCount) {
    const uint32_t s = cp - kSBase;
    out[0] = with_class(kLBase + s / kNCount);
    out[1] = with_class(kVBase + (s % kNCount) / kTCount);
    if (s % kTCount == 0) return 2;
    out[2] = with_class(kTBase + s % kTCount);
    return 3;
  }
  const long row = find_row(ut::kDecompositions, ut::kDecompositionCount, cp);
  if (row < 0) {
    out[0] = with_class(cp);
    return 1;
  }
  const uint32_t* d = ut::kDecompositions[row];
  const size_t n = decompose(d[1], out);  // recursion depth: at most 4 (the database's longest chain)
  return d[2] == 0 ? n : n + decompose(d[2], out + n);
}

// The primary composite of (first, second), or 0.
uint32_t compose(uint32_t first, uint32_t second) {
  if (first >= kLBase && first < kLBase + kLCount && second >= kVBase && second < kVBase + kVCount) {
    return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
  }
  if (first >= kSBase && first < kSBase + kSCount && (first - kSBase) % kTCount == 0 && second > kTBase &&
      second < kTBase + kTCount) {
    return first + (second - kTBase);
  }
  size_t lo = 0, hi = ut::kCompositeCount;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const uint32_t* d = ut::kDecompositions[ut::kComposites[mid]];
    if (d[1] == first && d[2] == second) return d[0];
    if (d[1] < first || (d[1] == first && d[2] < second)) lo = mid + 1; else hi = mid;
  }
  return 0;
}

// Stable sort of words[0, n) by combining class (bottom-up merge sort through temp), so
// a text of a million marks costs n log n, not n squared.
void sort_by_class(uint32_t* words, size_t n, uint32_t* temp) {
  for (size_t width = 1; width < n; width *= 2) {
    for (size_t lo = 0; lo < n; lo += 2 * width) {
      const size_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
      size_t a = lo, b = mid, t = lo;
      while (a < mid && b < hi) temp[t++] = class_of(words[b]) < class_of(words[a]) ? words[b++] : words[a++];
      while (a < mid) temp[t++] = words[a++];
      while (b < hi) temp[t++] = words[b++];
    }
    for (size_t i = 0; i < n; ++i) words[i] = temp[i];
  }
}

// Canonical decomposition and ordering of text into words (with classes); returns the count.
size_t decompose_text(const char* text, size_t bytes, uint32_t* words, uint32_t* temp) {
  size_t n = 0;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t length = utf8_decode(text, bytes, i, &cp);
    char check[4];
    const bool well_formed = (length > 1 || cp < 0x80) && utf8_encode_any(cp, check) == length &&
                             !(cp >= 0xD800 && cp < 0xE000);
    if (well_formed) {
      n += decompose(cp, words + n);
    } else {
      for (size_t k = 0; k < length; ++k) words[n++] = kRawByte | static_cast<uint8_t>(text[i + k]);
    }
    i += length;
  }
  for (size_t start = 0; start < n;) {  // each run of non-starters sorted by class
    if (class_of(words[start]) == 0) {
      ++start;
      continue;
    }
    size_t end = start;
    while (end < n && class_of(words[end]) != 0) ++end;
    if (end - start > 1) sort_by_class(words + start, end - start, temp);
    start = end;
  }
  return n;
}

size_t encode_words(const uint32_t* words, size_t n, char* out) {
  size_t written = 0;
  for (size_t i = 0; i < n; ++i) {
    if (words[i] & kRawByte) {
      out[written++] = static_cast<char>(words[i] & 0xFF);
    } else {
      written += utf8_encode_any(code_point_of(words[i]), out + written);
    }
  }
  return written;
}

}  // namespace

Category general_category(uint32_t cp) {
  return static_cast<Category>(range_value(ut::kCategoryRanges, ut::kCategoryRangeCount, cp));
}

uint8_t combining_class(uint32_t cp) { return range_value(ut::kCombiningRanges, ut::kCombiningRangeCount, cp); }

bool is_white_space(uint32_t cp) {
  size_t lo = 0, hi = ut::kWhiteSpaceCount;
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    if (ut::kWhiteSpace[mid] == cp) return true;
    if (ut::kWhiteSpace[mid] < cp) lo = mid + 1; else hi = mid;
  }
  return false;
}

size_t to_lowercase(uint32_t cp, uint32_t out[2]) {
  if (cp == 0x130) {  // SpecialCasing.txt's unconditional mapping: i and a combining dot above
    out[0] = 'i';
    out[1] = 0x307;
    return 2;
  }
  const long row = find_row(ut::kLowercase, ut::kLowercaseCount, cp);
  out[0] = row < 0 ? cp : ut::kLowercase[row][1];
  return 1;
}

size_t utf8_encode_any(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

size_t to_nfd(const char* text, size_t bytes, char* out, uint32_t* work) {
  const size_t half = normalization_work_words(bytes) / 2;  // words, then the sort's temp
  const size_t n = decompose_text(text, bytes, work, work + half);
  return encode_words(work, n, out);
}

// Composition as in UAX #15's reference: each character composes with the last starter
// when nothing between them blocks it (a character of the same or a higher class), or
// when it follows the starter directly.
size_t to_nfc(const char* text, size_t bytes, char* out, uint32_t* work) {
  const size_t half = normalization_work_words(bytes) / 2;
  const size_t n = decompose_text(text, bytes, work, work + half);
  if (n == 0) return 0;
  size_t starter = 0, kept = 1;
  uint32_t last_class = class_of(work[0]) == 0 ? 0 : 256;  // a leading non-starter blocks
  for (size_t i = 1; i < n; ++i) {
    const uint32_t word = work[i], klass = class_of(word);
    const bool raw = (word & kRawByte) != 0 || (work[starter] & kRawByte) != 0;
    const uint32_t composite = raw || class_of(work[starter]) != 0 ? 0
                                   : compose(code_point_of(work[starter]), code_point_of(word));
    if (composite != 0 && (last_class < klass || last_class == 0)) {
      work[starter] = with_class(composite);
      continue;
    }
    if (klass == 0) starter = kept;
    last_class = klass;
    work[kept++] = word;
  }
  return encode_words(work, kept, out);
}

}  // namespace tokenizer
}  // namespace focal
