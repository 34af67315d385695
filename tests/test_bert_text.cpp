// BERT's text handling over all of Unicode (issue 33): control characters dropped, full
// Unicode lowercasing, NFD accent stripping, Unicode punctuation, CJK ideographs split,
// special tokens typed in the text, cased and uncased. The four tokenizer.json files of
// tests/tokenizers/make_bert_references.py (a WordPiece vocabulary covering many scripts,
// BertNormalizer with lowercase and strip_accents in each combination) and the vocab.txt
// path (transformers' BertTokenizer: wordpiece:bert_vocab.txt[:lowercase], checked against
// the uncased and cased files) encode real_corpus.txt and the script's own lines;
// bert_expected.json holds @huggingface/tokenizers' ids, without ("plain") and with
// ([CLS] A [SEP]) the special tokens added. Prints "n of m equal" per file.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "apps/tokenizer/wordpiece.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "support/converted_tokenizer.h"
#include "support/tokenizer_calls.h"
#include "tokenizers/tokenizer_files.h"

using namespace focal;

namespace {

const std::string kDir = std::string(FOCAL_SOURCE_DIR) + "/tests/tokenizers/";

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string show(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

// real_corpus.txt's lines, then the script's own.
std::vector<std::string> corpus(const nlohmann::json& expected) {
  std::vector<std::string> lines;
  std::istringstream in(read_file(kDir + "real_corpus.txt"));
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  for (const auto& text : expected.at("texts")) lines.push_back(text.get<std::string>());
  return lines;
}

struct Case {
  const char* spec;       // the --tokenizer spec, relative to tests/tokenizers
  const char* reference;  // key in bert_expected.json
};

const Case kCases[] = {
    {"bert_uncased.tokenizer.json", "bert_uncased"},
    {"bert_cased.tokenizer.json", "bert_cased"},
    {"bert_cased_strip.tokenizer.json", "bert_cased_strip"},
    {"bert_lower_keep.tokenizer.json", "bert_lower_keep"},
    {"wordpiece:bert_vocab.txt:lowercase", "bert_uncased"},
    {"wordpiece:bert_vocab.txt", "bert_cased"},
};

}  // namespace

TEST_CASE("BERT's normalizer and pre-tokenizer over all of Unicode equal @huggingface/tokenizers") {
  const nlohmann::json expected = nlohmann::json::parse(read_file(kDir + "bert_expected.json"));
  const std::vector<std::string> lines = corpus(expected);
  REQUIRE(lines.size() >= 360);
  const size_t m = lines.size();
  std::string table;
  for (const Case& c : kCases) {
    const std::string spec_text = c.spec[0] == 'w' ? "wordpiece:" + kDir + (c.spec + 10) : kDir + c.spec;
    CAPTURE(spec_text);
    const auto loaded = testing::load_converted_tokenizer(spec_text);
    const Tokenizer& t = *loaded->tokenizer;
    const nlohmann::json& ref = expected.at("files").at(c.reference);
    size_t plain_equal = 0, ids_equal = 0;
    for (size_t i = 0; i < m; ++i) {
      const std::string& text = lines[i];
      CAPTURE(text);
      std::string error;
      const auto want_plain = ref.at("plain").at(i).get<std::vector<int32_t>>();
      const auto want_ids = ref.at("ids").at(i).get<std::vector<int32_t>>();
      const auto plain = testing::try_encode(t, text, false, &error);
      const auto ids = testing::try_encode(t, text, true, &error);
      const bool plain_ok = plain && *plain == want_plain, ids_ok = ids && *ids == want_ids;
      plain_equal += plain_ok;
      ids_equal += ids_ok;
      CHECK_MESSAGE(plain_ok, "plain ", plain ? show(*plain) : error, " expected ", show(want_plain));
      CHECK_MESSAGE(ids_ok, "with specials ", ids ? show(*ids) : error, " expected ", show(want_ids));
    }
    table += std::string(c.spec) + " (reference " + c.reference + "): plain " + std::to_string(plain_equal) + " of " +
             std::to_string(m) + " equal, with [CLS] [SEP] " + std::to_string(ids_equal) + " of " +
             std::to_string(m) + " equal\n";
  }
  std::printf("BERT text (real_corpus.txt and bert_expected.json's lines):\n%s", table.c_str());
}

TEST_CASE("BERT's special tokens typed in the text are plain text with parse_special off") {
  auto spec = convert::read_tokenizer("wordpiece:" + kDir + "bert_vocab.txt:lowercase");
  REQUIRE(spec.ok());
  const int32_t cls = spec->bos_id;
  const auto loaded = testing::open_spec(std::move(spec).value());
  Tokenizer t = *loaded->tokenizer;
  std::string error;
  CHECK(testing::try_encode(t, "[CLS]", false, &error) == std::vector<int32_t>{cls});
  t.set_parse_special(false);
  const auto as_text = testing::try_encode(t, "[CLS]", false, &error);
  REQUIRE(as_text);
  CHECK(as_text->size() > 2);  // "[", the pieces of "cls", "]"
  CHECK(std::find(as_text->begin(), as_text->end(), cls) == as_text->end());
}

TEST_CASE("BERT's text splitting stays inside bert_words_scratch_bytes() for the texts that grow most") {
  const auto repeat = [](const std::string& unit, size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += unit;
    return s;
  };
  const std::string texts[] = {
      repeat("\xC8\xBA", 50),                // U+023A: 2 bytes lowercase to 3
      repeat("\xC4\xB0!", 50),               // U+0130 then punctuation: i + U+0307, separators
      repeat("\xE4\xB8\xAD", 50),            // CJK ideographs: 2 spaces each
      repeat("!", 100),                      // a word and a separator per byte
      repeat("\xCE\x90", 50),                // U+0390: NFD triples it (iota, two marks)
      repeat("\xE1\xBE\x82", 40),            // U+1F82: NFD to four code points
      repeat("a\xFF\xC0!", 30),              // malformed bytes among letters and punctuation
  };
  const uint64_t canary = 0x5A5A5A5A5A5A5A5AULL;
  for (const std::string& text : texts) {
    for (const bool lowercase : {false, true}) {
      for (const bool strip : {false, true}) {
        const size_t need = tokenizer::bert_words_scratch_bytes(text.size());
        std::vector<uint64_t> scratch((need + 7) / 8 + 64, canary);
        tokenizer::BertText how;
        how.lowercase = lowercase;
        how.strip_accents = strip;
        const char* words = nullptr;
        const size_t n = tokenizer::bert_words(text.data(), text.size(), how, scratch.data(), &words);
        CHECK(n > 0);
        for (size_t i = (need + 7) / 8; i < scratch.size(); ++i) CHECK(scratch[i] == canary);
      }
    }
  }
  CHECK(tokenizer::kBertScratchBytesPerByte <= Tokenizer::kScratchBytesPerTextByte);
}

// Where @huggingface/tokenizers' JavaScript port differs from the Rust source, the engine
// follows Rust (make_bert_references.py keeps these characters out of the reference corpus).
TEST_CASE("BERT's text splitting follows tokenizers' Rust source where the JavaScript port differs") {
  const auto words = [](const std::string& text, bool lowercase) {
    std::vector<uint64_t> scratch(tokenizer::bert_words_scratch_bytes(text.size()) / 8 + 1);
    tokenizer::BertText how;
    how.lowercase = how.strip_accents = lowercase;
    const char* out = nullptr;
    const size_t n = tokenizer::bert_words(text.data(), text.size(), how, scratch.data(), &out);
    return std::string(out, n);
  };
  // An ideograph outside the Basic Multilingual Plane (U+20000) is a word of its own; the
  // port looks at UTF-16 units and misses it.
  CHECK(words("a\xF0\xA0\x80\x80" "b", false) == std::string("a\0\xF0\xA0\x80\x80\0b\0", 9));
  // Rust's fifth range starts at U+2B920: U+2B820 stays inside its word.
  CHECK(words("a\xF0\xAB\xA0\xA0" "b", false) == std::string("a\xF0\xAB\xA0\xA0" "b\0", 7));
  // char::to_lowercase has no context: a final capital sigma gives σ, not ς.
  CHECK(words("\xCE\x9F\xCE\x94\xCE\x9F\xCE\xA3", true) == std::string("\xCE\xBF\xCE\xB4\xCE\xBF\xCF\x83\0", 9));
  // Unassigned code points (Cn, U+0378) stay, private use (Co, U+E000) goes, U+2028 (White_Space) separates.
  CHECK(words("x\xCD\xB8y\xEE\x80\x80z\xE2\x80\xA8w", false) == std::string("x\xCD\xB8yz\0w\0", 8));
}
