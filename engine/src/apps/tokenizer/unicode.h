// Unicode character properties and normalization over all of Unicode, from the tables
// generated at build time (unicode_tables.h): what tokenizers' pre-tokenizer regexes
// (\p{L}, \p{N}, \s), normalizers (NFC, NFD, lowercase) and BERT's text cleanup ask of a
// character. No allocation: the callers pass their memory.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace tokenizer {

// The general categories, in UnicodeData.txt's two-letter names.
enum class Category : uint8_t {
  Lu, Ll, Lt, Lm, Lo, Mn, Mc, Me, Nd, Nl, No, Pc, Pd, Ps, Pe, Pi,
  Pf, Po, Sm, Sc, Sk, So, Zs, Zl, Zp, Cc, Cf, Cs, Co, Cn
};

Category general_category(uint32_t cp);
inline bool is_letter(uint32_t cp) { return general_category(cp) <= Category::Lo; }  // \p{L}
inline bool is_number(uint32_t cp) {  // \p{N}
  const Category c = general_category(cp);
  return c >= Category::Nd && c <= Category::No;
}
inline bool is_mark(uint32_t cp) {  // \p{M}
  const Category c = general_category(cp);
  return c >= Category::Mn && c <= Category::Me;
}
inline bool is_punctuation(uint32_t cp) {  // \p{P}
  const Category c = general_category(cp);
  return c >= Category::Pc && c <= Category::Po;
}
bool is_white_space(uint32_t cp);  // the White_Space property: Rust regex's \s
uint8_t combining_class(uint32_t cp);  // canonical combining class (0: a starter)

// The lowercase of cp as Rust's char::to_lowercase gives it: one code point, or two for
// U+0130. Returns how many it wrote to out.
size_t to_lowercase(uint32_t cp, uint32_t out[2]);

// Writes cp as UTF-8 (1 to 4 bytes); returns the byte count.
size_t utf8_encode_any(uint32_t cp, char* out);

// Normalization forms C and D of UTF-8 text. The output holds at most
// kNormalizedBytesPerByte bytes per input byte (NFC and NFD grow UTF-8 text at most
// threefold); `work` holds normalization_work_words(bytes) 32-bit words. Malformed UTF-8
// bytes pass through unchanged, as starters nothing composes with.
constexpr size_t kNormalizedBytesPerByte = 3;
inline size_t normalization_work_words(size_t bytes) { return 4 * bytes + 4; }
size_t to_nfc(const char* text, size_t bytes, char* out, uint32_t* work);
size_t to_nfd(const char* text, size_t bytes, char* out, uint32_t* work);

}  // namespace tokenizer
}  // namespace focal
