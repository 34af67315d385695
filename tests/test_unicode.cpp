// The engine's Unicode properties and normalization (engine/src/apps/tokenizer/unicode.h)
// against the Unicode Character Database files themselves, read here independently of
// the build-time generator: every code point's general category, White_Space and simple
// lowercase, and NormalizationTest.txt's every case for NFC and NFD (the conformance test
// the standard publishes). Plus what the database cannot say: malformed UTF-8 passes
// through, a million combining marks cost n log n, and the scanners of pretokenize.h.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "apps/tokenizer/pretokenize.h"
#include "apps/tokenizer/unicode.h"

using namespace focal;
using namespace focal::tokenizer;

namespace {

const std::string kUcd = FOCAL_UNICODE_DIR;

std::vector<std::string> split(const std::string& line, char by) {
  std::vector<std::string> out;
  std::stringstream in(line);
  for (std::string field; std::getline(in, field, by);) out.push_back(field);
  if (!line.empty() && line.back() == by) out.emplace_back();
  return out;
}

std::string utf8(const std::vector<uint32_t>& cps) {
  std::string out;
  for (uint32_t cp : cps) {
    char b[4];
    out.append(b, utf8_encode_any(cp, b));
  }
  return out;
}

std::string normalized(const std::string& text, bool compose) {
  std::vector<char> out(kNormalizedBytesPerByte * text.size() + 1);
  std::vector<uint32_t> work(normalization_work_words(text.size()));
  const size_t n = compose ? to_nfc(text.data(), text.size(), out.data(), work.data())
                           : to_nfd(text.data(), text.size(), out.data(), work.data());
  return std::string(out.data(), n);
}

// The pre-tokens of text.
std::vector<std::string> pretokens(SplitPattern pattern, const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    const size_t n = next_pretoken(pattern, text.data(), text.size(), i);
    out.push_back(text.substr(i, n));
    i += n;
  }
  return out;
}

}  // namespace

TEST_CASE("every code point's general category, case and White_Space are the database's") {
  const char* names[] = {"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "No", "Pc", "Pd", "Ps", "Pe",
                         "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So", "Zs", "Zl", "Zp", "Cc", "Cf", "Cs", "Co", "Cn"};
  std::vector<std::string> category(0x110000, "Cn");
  std::vector<uint32_t> lower(0x110000);
  for (uint32_t cp = 0; cp < lower.size(); ++cp) lower[cp] = cp;
  std::ifstream data(kUcd + "/UnicodeData.txt");
  REQUIRE(data.good());
  uint32_t range_first = 0;
  for (std::string line; std::getline(data, line);) {
    const std::vector<std::string> f = split(line, ';');
    const uint32_t cp = static_cast<uint32_t>(std::stoul(f[0], nullptr, 16));
    if (f[1].find(", First>") != std::string::npos) {
      range_first = cp;
      continue;
    }
    const uint32_t first = f[1].find(", Last>") != std::string::npos ? range_first : cp;
    for (uint32_t c = first; c <= cp; ++c) category[c] = f[2];
    if (!f[13].empty()) lower[cp] = static_cast<uint32_t>(std::stoul(f[13], nullptr, 16));
  }
  std::vector<bool> white(0x110000, false);
  std::ifstream props(kUcd + "/PropList.txt");
  for (std::string line; std::getline(props, line);) {
    if (line.find("; White_Space") == std::string::npos || line[0] == '#') continue;
    const std::vector<std::string> range = split(line.substr(0, line.find(' ')), '.');
    const uint32_t lo = static_cast<uint32_t>(std::stoul(range[0], nullptr, 16));
    const uint32_t hi = range.size() > 2 ? static_cast<uint32_t>(std::stoul(range[2], nullptr, 16)) : lo;
    for (uint32_t c = lo; c <= hi; ++c) white[c] = true;
  }
  size_t wrong_category = 0, wrong_lower = 0, wrong_space = 0;
  for (uint32_t cp = 0; cp < 0x110000; ++cp) {
    wrong_category += category[cp] != names[static_cast<int>(general_category(cp))] ? 1 : 0;
    uint32_t out[2];
    const size_t n = to_lowercase(cp, out);
    wrong_lower += (cp == 0x130 ? !(n == 2 && out[0] == 'i' && out[1] == 0x307) : !(n == 1 && out[0] == lower[cp])) ? 1 : 0;
    wrong_space += white[cp] != is_white_space(cp) ? 1 : 0;
  }
  CHECK(wrong_category == 0);
  CHECK(wrong_lower == 0);
  CHECK(wrong_space == 0);
  CHECK(is_letter(0x4E2D));     // 中
  CHECK(!is_letter(0x0915 + 0x3E));  // DEVANAGARI VOWEL SIGN AA: a mark, not a letter
  CHECK(is_number(0x0663));     // ARABIC-INDIC DIGIT THREE
  CHECK(is_white_space(0x3000));
  CHECK(!is_white_space(0x200B));  // ZERO WIDTH SPACE is not White_Space
}

TEST_CASE("NFC and NFD pass every case of the standard's NormalizationTest.txt") {
  const char* path = std::getenv("FOCAL_NORMALIZATION_TEST");
  REQUIRE_MESSAGE(path != nullptr, "FOCAL_NORMALIZATION_TEST names the unpacked NormalizationTest.txt (ctest sets it)");
  std::ifstream in(path);
  REQUIRE(in.good());
  size_t cases = 0, failures = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line[0] == '@') continue;
    const std::vector<std::string> columns = split(line, ';');
    std::string c[5];
    for (int k = 0; k < 5; ++k) {
      std::vector<uint32_t> cps;
      for (const std::string& hex : split(columns[static_cast<size_t>(k)], ' ')) {
        if (!hex.empty()) cps.push_back(static_cast<uint32_t>(std::stoul(hex, nullptr, 16)));
      }
      c[k] = utf8(cps);
    }
    // NFC: c2 == toNFC(c1) == toNFC(c2) == toNFC(c3); c4 == toNFC(c4) == toNFC(c5).
    // NFD: c3 == toNFD(c1) == toNFD(c2) == toNFD(c3); c5 == toNFD(c4) == toNFD(c5).
    const bool ok = normalized(c[0], true) == c[1] && normalized(c[1], true) == c[1] &&
                    normalized(c[2], true) == c[1] && normalized(c[3], true) == c[3] &&
                    normalized(c[4], true) == c[3] && normalized(c[0], false) == c[2] &&
                    normalized(c[1], false) == c[2] && normalized(c[2], false) == c[2] &&
                    normalized(c[3], false) == c[4] && normalized(c[4], false) == c[4];
    if (!ok && failures++ < 5) MESSAGE("fails: " << line);
    ++cases;
  }
  CHECK(cases > 18000);
  CHECK(failures == 0);
}

TEST_CASE("normalization keeps malformed UTF-8 and sorts a million marks") {
  const std::string malformed = "a\xC3\x28" "e\xCC\x81\xFF\xE2\x82";  // bad bytes around an e + acute
  CHECK(normalized(malformed, true) == "a\xC3\x28\xC3\xA9\xFF\xE2\x82");
  std::string marks = "a";
  for (int i = 0; i < 500000; ++i) marks += i % 2 ? "\xCC\x81" : "\xCC\xA3";  // acute (230), dot below (220)
  const std::string nfd = normalized(marks, false);
  REQUIRE(nfd.size() == marks.size());
  CHECK(nfd.substr(1, 4) == "\xCC\xA3\xCC\xA3");                 // the dots below first
  CHECK(nfd.substr(nfd.size() - 4) == "\xCC\x81\xCC\x81");       // the acutes last
  CHECK(normalized("\xEA\xB0\x80\xE1\x86\xA8", true) == "\xEA\xB0\x81");  // Hangul LV + T composes: 가 + ᆨ = 각
}

TEST_CASE("the byte-level pre-tokenizers split as their regexes do") {
  using V = std::vector<std::string>;
  CHECK(pretokens(SplitPattern::kGpt2, "Hello world's 12345  x\n") ==
        V{"Hello", " world", "'s", " 12345", " ", " x", "\n"});
  CHECK(pretokens(SplitPattern::kLlama3, "I'M 12345 (abc)\n\n  x") == V{"I", "'M", " ", "123", "45", " (", "abc", ")\n\n", " ", " x"});
  CHECK(pretokens(SplitPattern::kQwen2, "v12 \t\r\n y") == V{"v", "1", "2", " \t\r\n", " y"});
  // Devanagari vowel signs are marks: \p{L}+ stops at them in every pattern.
  CHECK(pretokens(SplitPattern::kGpt2, "\xE0\xA4\x95\xE0\xA4\xBE") == V{"\xE0\xA4\x95", "\xE0\xA4\xBE"});
}
