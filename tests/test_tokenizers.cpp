// The tokenizers stored in model files against reference outputs: GPT-2 byte-level BPE
// (demo/story's vocabulary) on tests/tokenizers/corpus.txt, whose expected ids
// tests/tokenizers/bpe_reference.py computed once with the published algorithm (see its
// provenance field); decoding restores the text byte for byte. WordPiece and the unigram
// model against tests/tokenizers/kjv_expected.json (BERT's algorithm, and Debian's
// python3-sentencepiece; tests/tokenizers/make_references.py). Also a character
// vocabulary, and the loader's checks of the lookup tables.
#include <doctest/doctest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "support/aligned_buffer.h"
#include "tokenizers/tokenizer_files.h"

using namespace focal;

namespace {

const std::string kRoot = FOCAL_SOURCE_DIR;

// A model holding only a tokenizer (no ops).
std::vector<uint8_t> tokenizer_model(TokenizerSpec spec) {
  ModelWriter w;
  w.set_tokenizer(std::move(spec));
  auto bytes = w.finish();
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().message());
  return bytes.value();
}

std::vector<int32_t> encode(const Tokenizer& t, const std::string& text) {
  std::vector<int32_t> ids(text.size() + 1);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  auto n = t.encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  ids.resize(n.value());
  return ids;
}

std::string decode(const Tokenizer& t, const std::vector<int32_t>& ids) {
  std::string text;
  char piece[256];
  for (int32_t id : ids) {
    auto n = t.decode_token(id, piece, sizeof(piece));
    REQUIRE(n.ok());
    text.append(piece, n.value());
  }
  return text;
}

}  // namespace

TEST_CASE("byte-level BPE matches the reference ids on the test corpus and decodes back") {
  auto spec = convert::read_tokenizer("bpe:" + kRoot + "/demo/story/vocab.json:" + kRoot + "/demo/story/merges.txt");
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  testing::AlignedBuffer file(tokenizer_model(std::move(spec).value()));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  auto tokenizer = Tokenizer::from_model(model.value());
  REQUIRE(tokenizer.ok());
  CHECK(tokenizer->vocab_size() == 512);
  CHECK(tokenizer->eos_id() == 511);
  std::ifstream in(kRoot + "/tests/tokenizers/story_bpe_expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in);
  size_t tokens = 0;
  for (const auto& c : expected.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    CAPTURE(text);
    const std::vector<int32_t> ids = encode(tokenizer.value(), text);
    CHECK(ids == c.at("ids").get<std::vector<int32_t>>());
    CHECK(decode(tokenizer.value(), ids) == text);
    tokens += ids.size();
  }
  CHECK(tokens > 400);
}

TEST_CASE("a character vocabulary maps characters to ids, unknown ones to <unk>") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.vocab = {"<pad>", "<bos>", "<eos>", "<unk>", "a", "b", "é", " "};
  spec.pad_id = 0;
  spec.bos_id = 1;
  spec.eos_id = 2;
  spec.unk_id = 3;
  testing::AlignedBuffer file(tokenizer_model(spec));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  auto t = Tokenizer::from_model(model.value());
  REQUIRE(t.ok());
  CHECK(encode(t.value(), "ab é z") == std::vector<int32_t>{4, 5, 7, 6, 7, 3});
  CHECK(decode(t.value(), {4, 6, 5}) == "aéb");
  char out[8];
  CHECK(t->decode_token(99, out, sizeof(out)).status().code() == StatusCode::kOutOfRange);
}

TEST_CASE("the loader refuses tokenizer tables that are out of order or out of range") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.vocab = {"a", "b", "c"};
  const std::vector<uint8_t> good = tokenizer_model(spec);
  testing::AlignedBuffer file(good);
  REQUIRE(Model::from_bytes(file.data(), file.size()).ok());
  spec.eos_id = 7;  // beyond the vocabulary
  testing::AlignedBuffer bad(tokenizer_model(spec));
  const auto refused = Model::from_bytes(bad.data(), bad.size());
  REQUIRE(!refused.ok());
  CHECK(std::string(refused.status().message()).find("special token id 7") != std::string::npos);
}

namespace {

void check_against(const std::string& spec_text, const char* family, const std::string& unk) {
  auto spec = convert::read_tokenizer(spec_text);
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  testing::AlignedBuffer file(tokenizer_model(std::move(spec).value()));
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  auto tokenizer = Tokenizer::from_model(model.value());
  REQUIRE_MESSAGE(tokenizer.ok(), tokenizer.status().message());
  std::ifstream in(kRoot + "/tests/tokenizers/kjv_expected.json");
  const nlohmann::json expected = nlohmann::json::parse(in).at(family);
  size_t tokens = 0;
  for (const auto& c : expected.at("cases")) {
    const std::string text = c.at("text").get<std::string>();
    CAPTURE(text);
    const std::vector<int32_t> ids = encode(tokenizer.value(), text);
    CHECK(ids == c.at("ids").get<std::vector<int32_t>>());
    tokens += ids.size();
  }
  CHECK(tokens > 100);
  // Decoding: the pieces' text (WordPiece joins words with spaces; unigram turns U+2581
  // back into spaces), for the first case where nothing is unknown.
  const std::string first = expected.at("cases")[0].at("text").get<std::string>();
  std::string decoded = decode(tokenizer.value(), encode(tokenizer.value(), first));
  if (!decoded.empty() && decoded[0] == ' ') decoded.erase(0, 1);
  if (unk == "[UNK]") {
    CHECK(decoded == "in the beginning god created the heaven and the earth .");
  } else {
    CHECK(decoded == first);
  }
}

}  // namespace

TEST_CASE("WordPiece (uncased) matches BERT's algorithm on the test corpus") {
  check_against("wordpiece:" + kRoot + "/tests/tokenizers/kjv_wordpiece.txt:lowercase", "wordpiece", "[UNK]");
}

TEST_CASE("the unigram model matches SentencePiece on the test corpus") {
  check_against("unigram:" + kRoot + "/tests/tokenizers/kjv_unigram.vocab", "unigram", "<unk>");
}
