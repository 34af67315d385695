// SentencePiece's precompiled character map (nmt_nfkc: T5's, XLM-R's normalization).
// nfkc_unigram_spm.model (tests/tokenizers/make_nfkc_references.py: python3-sentencepiece
// trained with normalization_rule_name nmt_nfkc) read from the .model and from a T5-style
// tokenizer.json written here from it (Precompiled normalizer holding the same map in
// base64, WhitespaceSplit + Metaspace, Unigram) give SentencePieceProcessor.encode's ids
// on every line of nfkc_expected.json. A map built by hand checks the whitespace rules
// around replacements, the growth bound, and broken maps refused at load.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "apps/tokenizer/charsmap.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "support/aligned_buffer.h"
#include "support/converted_tokenizer.h"
#include "support/scratch_dir.h"
#include "tokenizers/sentencepiece_model.h"

using namespace focal;

namespace {

const std::string kDir = std::string(FOCAL_SOURCE_DIR) + "/tests/tokenizers/";

// Up to 8 ids per text byte: U+FDFA's 3 bytes are 17 pieces in a small vocabulary.
Result<size_t> encode_into(const Tokenizer& t, const std::string& text, std::vector<int32_t>* ids) {
  ids->assign(8 * text.size() + 16, 0);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  return t.encode(text.data(), text.size(), ids->data(), ids->size(), scratch.data(), scratch.size() * 8);
}

// How many of nfkc_expected.json's lines `t` encodes to SentencePiece's ids.
size_t count_equal(const Tokenizer& t, size_t* lines) {
  std::ifstream in(kDir + "nfkc_expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  const auto& texts = expected.at("texts");
  *lines = texts.size();
  size_t equal = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const std::string text = texts[i].get<std::string>();
    std::vector<int32_t> ids;
    Result<size_t> n = encode_into(t, text, &ids);
    REQUIRE_MESSAGE(n.ok(), n.status().message());
    ids.resize(n.value());
    const bool same = ids == expected.at("ids")[i].get<std::vector<int32_t>>();
    if (!same) MESSAGE("differs: " << text);
    equal += same ? 1 : 0;
  }
  return equal;
}

std::string base64(const std::string& bytes) {
  static const char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (size_t i = 0; i < bytes.size(); i += 3) {
    uint32_t word = static_cast<uint8_t>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) word |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) word |= static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[word >> 18];
    out += kAlphabet[(word >> 12) & 63];
    out += i + 1 < bytes.size() ? kAlphabet[(word >> 6) & 63] : '=';
    out += i + 2 < bytes.size() ? kAlphabet[word & 63] : '=';
  }
  return out;
}

// T5's tokenizer.json layout (as the hub serves t5-small's) around the model's pieces.
std::string t5_style_tokenizer_json(const TokenizerSpec& spec) {
  nlohmann::json vocab = nlohmann::json::array();
  for (size_t i = 0; i < spec.vocab.size(); ++i) vocab.push_back({spec.vocab[i], spec.scores[i]});
  nlohmann::json file = {
      {"version", "1.0"},
      {"truncation", nullptr},
      {"padding", nullptr},
      {"added_tokens", nlohmann::json::array()},
      {"normalizer", {{"type", "Precompiled"}, {"precompiled_charsmap", base64(spec.charsmap)}}},
      {"pre_tokenizer",
       {{"type", "Sequence"},
        {"pretokenizers",
         {{{"type", "WhitespaceSplit"}},
          {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"add_prefix_space", true}}}}}},
      {"post_processor", nullptr},
      {"decoder", {{"type", "Metaspace"}, {"replacement", "\xE2\x96\x81"}, {"add_prefix_space", true}}},
      {"model", {{"type", "Unigram"}, {"unk_id", spec.unk_id}, {"vocab", vocab}}}};
  return file.dump();
}

// A one-block Darts-clone trie by hand: the root (unit 0, offset 0) has children at their
// label; key "a" ends at unit 0x61, whose value unit is 0x62; key "ab" continues from 0x61.
// Values are offsets into `strings`.
std::string hand_charsmap(uint32_t a_value, uint32_t ab_value, const std::string& strings) {
  std::vector<uint32_t> units(256, 0);
  const auto unit = [](uint32_t offset, bool leaf, uint32_t label) { return offset << 10 | (leaf ? 1u << 8 : 0u) | label; };
  units[0x61] = unit(0x61 ^ 0x80, true, 0x61);  // node "a": children base 0x80
  units[0x80] = 0x80000000u | a_value;          // "a"'s value (label 0 of the base)
  units[0x80 ^ 0x62] = unit((0x80 ^ 0x62) ^ 0x90, true, 0x62);  // node "ab": base 0x90
  units[0x90] = 0x80000000u | ab_value;
  std::string blob(4, '\0');
  const uint32_t trie_bytes = 4 * 256;
  for (int k = 0; k < 4; ++k) blob[size_t(k)] = static_cast<char>(trie_bytes >> (8 * k));
  for (uint32_t u : units) {
    for (int k = 0; k < 4; ++k) blob += static_cast<char>(u >> (8 * k));
  }
  return blob + strings;
}

Result<std::string> normalize(const std::string& blob, const std::string& text, bool remove_extra = true) {
  auto map = tokenizer::check_charsmap(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
  if (!map.ok()) return map.status();
  std::vector<char> out(tokenizer::charsmap_normalized_bytes(text.size()));
  Result<size_t> n = tokenizer::normalize_with_charsmap(map.value(), text.data(), text.size(), {true, remove_extra},
                                                        out.data());
  if (!n.ok()) return n.status();
  std::string s(out.data(), n.value());
  for (size_t at = s.find("\xE2\x96\x81"); at != std::string::npos; at = s.find("\xE2\x96\x81")) s.replace(at, 3, "_");
  return s;
}

}  // namespace

TEST_CASE("an nmt_nfkc SentencePiece model gives python3-sentencepiece's ids, from the .model and a tokenizer.json") {
  auto from_model = testing::load_converted_tokenizer("sentencepiece:" + kDir + "nfkc_unigram_spm.model");
  size_t lines = 0;
  const size_t model_equal = count_equal(*from_model->tokenizer, &lines);
  MESSAGE("nfkc_unigram_spm.model: " << model_equal << " of " << lines << " lines equal");
  CHECK(lines >= 370);
  CHECK(model_equal == lines);

  auto spec = convert::read_sentencepiece_model(kDir + "nfkc_unigram_spm.model");
  REQUIRE(spec.ok());
  CHECK(spec->charsmap.size() > 200000);  // the whole nmt_nfkc table
  const testing::ScratchDir dir("charsmap");
  const std::string path = dir.file("tokenizer.json");
  std::ofstream(path) << t5_style_tokenizer_json(spec.value());
  auto from_json = testing::load_converted_tokenizer("hf:" + path);
  const size_t json_equal = count_equal(*from_json->tokenizer, &lines);
  MESSAGE("T5-style tokenizer.json: " << json_equal << " of " << lines << " lines equal");
  CHECK(json_equal == lines);
}

TEST_CASE("a malformed UTF-8 byte is U+FFFD after the map, as SentencePiece makes it") {
  // python3-sentencepiece 0.1.97 on this model: encode(b"ab\xffcd") gives unk for the
  // byte's U+FFFD (not a piece) and "c" without U+2581; a U+FFFD typed in the text goes
  // through the map, which makes it a space: [15, 59, 61 ("\u2581c"), 14].
  auto loaded = testing::load_converted_tokenizer("sentencepiece:" + kDir + "nfkc_unigram_spm.model");
  std::vector<int32_t> bad, typed;
  auto a = encode_into(*loaded->tokenizer, "ab\xFF" "cd", &bad);
  auto b = encode_into(*loaded->tokenizer, "ab\xEF\xBF\xBD" "cd", &typed);
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  bad.resize(a.value());
  typed.resize(b.value());
  CHECK(bad == std::vector<int32_t>{15, 59, 0, 58, 14});
  CHECK(typed == std::vector<int32_t>{15, 59, 61, 14});
}

TEST_CASE("replacements and SentencePiece's whitespace rules: judged on the replaced text") {
  // "a" -> " x ", "ab" -> "yy" (the longest key wins), strings "\0 x \0yy\0".
  const std::string map = hand_charsmap(1, 5, std::string("\0 x \0yy\0", 8));
  CHECK(normalize(map, "ab").value() == "_yy");
  CHECK(normalize(map, "a").value() == "_x");             // the dummy prefix absorbs the leading space
  CHECK(normalize(map, "qaq").value() == "_q_x_q");
  CHECK(normalize(map, "q  a  q").value() == "_q_x_q");  // runs made one across replacements
  CHECK(normalize(map, "q  a  q", false).value() == "_q___x___q");
  CHECK(normalize(map, " a ").value() == "_x");
  CHECK(normalize(map, "   ").value().empty());
  CHECK(normalize(map, "").value().empty());
  CHECK(normalize(map, "\xC3").value() == "_\xEF\xBF\xBD");  // a truncated character
  CHECK(normalize(map, "\xED\xA0\x80").value() == "_\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");  // a surrogate
}

TEST_CASE("a map that grows text beyond the bound fails the encode; broken maps are refused naming the fault") {
  const std::string forty(40, 'x');
  const std::string grows = hand_charsmap(1, 1, std::string("\0", 1) + forty + std::string("\0", 1));
  auto grown = normalize(grows, "a");
  REQUIRE_FALSE(grown.ok());
  CHECK(std::string(grown.status().message()).find("16-fold") != std::string::npos);
  CHECK(normalize(grows, "aaaaaaaaaaaaaaaaaaaa" "bbbbbbbbbbbbbbbbbbbbbbbb").status().ok() == false);
  CHECK(normalize(grows, "bcd").value() == "_bcd");

  const std::string good = hand_charsmap(1, 5, std::string("\0 x \0yy\0", 8));
  const auto refused = [](const std::string& blob, const char* why) {
    auto map = tokenizer::check_charsmap(reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
    REQUIRE_FALSE(map.ok());
    CHECK(std::string(map.status().message()).find(why) != std::string::npos);
  };
  refused(good.substr(0, 3), "shorter");
  refused(good.substr(0, 4 + 1024), "leaves no strings");
  std::string partial = good;
  partial[1] = 0x03;  // 768 + 4 bytes: not whole blocks
  partial[0] = 0x04;
  refused(partial, "whole blocks");
  refused(good.substr(0, good.size() - 1) + "z", "no NUL");
  std::string outside = good;
  outside[4 + 4 * 0x61 + 3] = 0x40;  // node "a"'s offset far beyond the block
  refused(outside, "outside the trie");
  refused(hand_charsmap(99, 5, std::string("\0 x \0yy\0", 8)), "offset into the strings");
  std::string not_value = good;
  not_value[4 + 4 * 0x80 + 3] = 0;  // "a"'s value unit without its value bit
  refused(not_value, "offset into the strings");
}

TEST_CASE("a stored character map is for unigram tokenizers, and a broken one fails the load") {
  auto spec = convert::read_sentencepiece_model(kDir + "kjv_unigram_spm.model");
  REQUIRE(spec.ok());
  spec->charsmap = std::string("\x00\x04\x00\x00", 4) + std::string(1024, '\x7f') + std::string("\0", 1);
  ModelWriter w;
  w.set_tokenizer(std::move(spec).value());
  auto bytes = w.finish();
  REQUIRE(bytes.ok());
  testing::AlignedBuffer buffer(bytes->size());
  std::memcpy(buffer.data(), bytes->data(), bytes->size());
  auto model = Model::from_bytes(buffer.data(), bytes->size());
  REQUIRE(model.ok());
  auto tokenizer = Tokenizer::from_model(model.value());
  REQUIRE_FALSE(tokenizer.ok());
  CHECK(std::string(tokenizer.status().message()).find("character map is broken") != std::string::npos);
}
