// The tokenizers stored in model files against reference outputs: GPT-2 byte-level BPE
// (demo/story's vocabulary) on tests/tokenizers/corpus.txt, whose expected ids
// tests/tokenizers/bpe_reference.py computed once with the published algorithm (see its
// provenance field); decoding restores the text byte for byte. WordPiece and the unigram
// model against tests/tokenizers/kjv_expected.json (BERT's algorithm, and Debian's
// python3-sentencepiece; tests/tokenizers/make_references.py). Also a character
// vocabulary, and the loader's checks of the lookup tables. Long texts (100,000 bytes)
// against straightforward reference implementations of each algorithm written here.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "focal/internal/checksum.h"
#include "focal/limits.h"
#include "focal/model.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "support/aligned_buffer.h"
#include "support/tokenizer_calls.h"
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/pretokenize.h"
#include "apps/tokenizer/wordpiece.h"
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

std::vector<int32_t> encode(const Tokenizer& t, const std::string& text) { return testing::encode_text(t, text); }

std::string decode(const Tokenizer& t, const std::vector<int32_t>& ids) { return testing::decode_ids(t, ids); }

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

// Long texts: each tokenizer on 100,000 bytes against a straightforward implementation of
// its algorithm over the same vocabulary (the engine's text splitting, pretokenize.h and
// wordpiece.h, is shared: these check the merging and matching on top of it). How long
// the engine takes is not checked here; tests/fuzz runs it on long inputs.
namespace {

// One letter repeated (one pre-token and one word), random bytes, random lowercase
// letters (one long pre-token of varied merges) and random words of them.
std::vector<std::string> long_texts() {
  constexpr size_t kBytes = 100000;
  std::mt19937 rng(20240601);
  std::string repeated(kBytes, 'a'), random(kBytes, '\0'), letters(kBytes, 'a'), words(kBytes, ' ');
  for (char& c : random) c = static_cast<char>(rng() & 0xFF);
  for (char& c : letters) c = static_cast<char>('a' + rng() % 26);
  for (char& c : words) c = rng() % 7 == 0 ? ' ' : static_cast<char>('a' + rng() % 26);
  return {repeated, random, letters, words};
}

struct Loaded : testing::LoadedTokenizer {
  TokenizerSpec spec;
};

std::unique_ptr<Loaded> load(const std::string& spec_text) {
  auto spec = convert::read_tokenizer(spec_text);
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  auto l = std::make_unique<Loaded>();
  l->spec = spec.value();
  testing::open_tokenizer(tokenizer_model(l->spec), l.get());
  return l;
}

std::unordered_map<std::string, int32_t> ids_of(const TokenizerSpec& spec) {
  std::unordered_map<std::string, int32_t> ids;
  for (size_t i = 0; i < spec.vocab.size(); ++i) ids.emplace(spec.vocab[i], static_cast<int32_t>(i));
  return ids;
}

// GPT-2's bpe() as encoder.py has it: the adjacent pair of lowest rank merges at every
// occurrence, left to right, and again until no pair merges.
std::vector<int32_t> reference_bpe(const TokenizerSpec& spec, const std::string& text) {
  const auto ids = ids_of(spec);
  std::unordered_map<uint64_t, size_t> ranks;  // (left id, right id) -> rank; the first rule wins
  const auto key = [](int32_t a, int32_t b) { return uint64_t(uint32_t(a)) << 32 | uint32_t(b); };
  for (size_t r = 0; r < spec.merges.size(); ++r) {
    ranks.emplace(key(ids.at(spec.merges[r].first), ids.at(spec.merges[r].second)), r);
  }
  std::vector<int32_t> out;
  for (size_t i = 0; i < text.size();) {
    const size_t length = tokenizer::next_pretoken(tokenizer::SplitPattern::kGpt2, text.data(), text.size(), i);
    std::vector<int32_t> word;
    for (size_t k = 0; k < length; ++k) {
      char utf8[2];
      const size_t n = tokenizer::utf8_encode(tokenizer::byte_to_code_point(uint8_t(text[i + k])), utf8);
      word.push_back(ids.at(std::string(utf8, n)));
    }
    for (;;) {
      size_t best = SIZE_MAX;
      for (size_t k = 0; k + 1 < word.size(); ++k) {
        const auto it = ranks.find(key(word[k], word[k + 1]));
        if (it != ranks.end() && it->second < best) best = it->second;
      }
      if (best == SIZE_MAX) break;
      const int32_t a = ids.at(spec.merges[best].first), b = ids.at(spec.merges[best].second);
      const int32_t merged = ids.at(spec.merges[best].first + spec.merges[best].second);
      std::vector<int32_t> next;
      for (size_t k = 0; k < word.size();) {
        if (k + 1 < word.size() && word[k] == a && word[k + 1] == b) {
          next.push_back(merged);
          k += 2;
        } else {
          next.push_back(word[k++]);
        }
      }
      word.swap(next);
    }
    out.insert(out.end(), word.begin(), word.end());
    i += length;
  }
  return out;
}

bool continuation_byte(char c) { return (uint8_t(c) & 0xC0) == 0x80; }

// BERT's WordPiece on bert_words(): longest match first, trying every end from the
// word's end down (at character boundaries), "##" after the first piece; a word of over
// 100 characters or with an unmatched rest is one unk.
std::vector<int32_t> reference_wordpiece(const TokenizerSpec& spec, const std::string& text) {
  const auto ids = ids_of(spec);
  std::vector<uint64_t> buffer(tokenizer::bert_words_scratch_bytes(text.size()) / 8 + 1);
  tokenizer::BertText how;
  how.lowercase = how.strip_accents = spec.lowercase;
  const char* words = nullptr;
  const size_t length = tokenizer::bert_words(text.data(), text.size(), how, buffer.data(), &words);
  std::vector<int32_t> out;
  for (size_t w = 0; w < length;) {
    const std::string word(words + w);
    w += word.size() + 1;
    size_t chars = 0;
    for (char c : word) chars += continuation_byte(c) ? 0 : 1;
    std::vector<int32_t> pieces;
    bool unknown = chars > 100;
    for (size_t start = 0; start < word.size() && !unknown;) {
      size_t end = word.size();
      int32_t found = -1;
      for (; end > start; --end) {
        if (end < word.size() && continuation_byte(word[end])) continue;
        const auto it = ids.find((start > 0 ? "##" : "") + word.substr(start, end - start));
        if (it != ids.end()) {
          found = it->second;
          break;
        }
      }
      unknown = found < 0;
      pieces.push_back(found);
      start = end;
    }
    if (unknown) pieces = {spec.unk_id};
    out.insert(out.end(), pieces.begin(), pieces.end());
  }
  return out;
}

// SentencePiece's unigram segmentation: U+2581 for each space and before the text, then
// the best-scoring path over byte positions, every piece up to the longest tried at every
// reachable position, a character no piece covers an unknown (10 below the lowest score),
// consecutive unknowns one unk.
std::vector<int32_t> reference_unigram(const TokenizerSpec& spec, const std::string& text) {
  const auto ids = ids_of(spec);
  size_t longest = 0;
  float lowest = spec.scores.at(0);
  for (size_t i = 0; i < spec.vocab.size(); ++i) {
    longest = std::max(longest, spec.vocab[i].size());
    lowest = std::min(lowest, spec.scores[i]);
  }
  std::string normal = "\xE2\x96\x81";
  for (char c : text) normal += c == ' ' ? std::string("\xE2\x96\x81") : std::string(1, c);
  const size_t n = normal.size();
  std::vector<double> best(n + 1, -1e300);
  std::vector<int64_t> from(n + 1, -1);
  std::vector<int32_t> piece(n + 1, -1);  // -2: an unknown character
  best[0] = 0.0;
  const auto relax = [&](size_t start, size_t end, double score, int32_t id) {
    if (best[start] + score > best[end]) {
      best[end] = best[start] + score;
      from[end] = int64_t(start);
      piece[end] = id;
    }
  };
  for (size_t start = 0; start < n; ++start) {
    if (start > 0 && from[start] < 0) continue;
    uint32_t cp = 0;
    const size_t char_bytes = tokenizer::utf8_decode(normal.data(), n, start, &cp);
    bool covered = false;
    for (size_t end = start + 1; end <= n && end - start <= longest; ++end) {
      const auto it = ids.find(normal.substr(start, end - start));
      if (it == ids.end() || it->second == spec.unk_id) continue;
      covered = covered || end - start == char_bytes;
      relax(start, end, double(spec.scores[size_t(it->second)]), it->second);
    }
    if (!covered) relax(start, start + char_bytes, double(lowest) - 10.0, -2);
  }
  std::vector<int32_t> out;
  for (size_t at = n; at > 0; at = size_t(from[at])) {
    if (piece[at] == -2 && !out.empty() && out.back() == -2) continue;
    out.push_back(piece[at]);
  }
  std::reverse(out.begin(), out.end());
  for (int32_t& id : out) id = id == -2 ? spec.unk_id : id;
  return out;
}

}  // namespace

TEST_CASE("byte-level BPE on 100,000-byte texts matches GPT-2's bpe() and decodes back") {
  const auto l = load("bpe:" + kRoot + "/demo/story/vocab.json:" + kRoot + "/demo/story/merges.txt");
  for (const std::string& text : long_texts()) {
    CAPTURE(text.substr(0, 40));
    const std::vector<int32_t> ids = encode(*l->tokenizer, text);
    CHECK(ids == reference_bpe(l->spec, text));
    CHECK(decode(*l->tokenizer, ids) == text);
  }
}

TEST_CASE("WordPiece on 100,000-byte texts matches BERT's longest-match-first") {
  const auto l = load("wordpiece:" + kRoot + "/tests/tokenizers/kjv_wordpiece.txt:lowercase");
  for (const std::string& text : long_texts()) {
    CAPTURE(text.substr(0, 40));
    CHECK(encode(*l->tokenizer, text) == reference_wordpiece(l->spec, text));
  }
}

TEST_CASE("the unigram model on 100,000-byte texts matches a Viterbi over every piece") {
  const auto l = load("unigram:" + kRoot + "/tests/tokenizers/kjv_unigram.vocab");
  for (const std::string& text : long_texts()) {
    CAPTURE(text.substr(0, 40));
    CHECK(encode(*l->tokenizer, text) == reference_unigram(l->spec, text));
  }
}

namespace {

// `bytes` with `change(copy, model)` applied and the checksum stamped again, as a forger
// would: what the loader's own checks must refuse.
template <typename Change>
std::vector<uint8_t> forged(const std::vector<uint8_t>& bytes, Change change) {
  testing::AlignedBuffer original(bytes);
  const auto model = Model::from_bytes(original.data(), original.size());
  REQUIRE(model.ok());
  std::vector<uint8_t> copy = bytes;
  change(copy.data(), *model);
  const fb::Model& root = *fb::GetSizePrefixedModel(copy.data());
  const size_t at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(root.checksum()) - copy.data());
  const uint32_t crc = crc32_skipping(copy.data(), copy.size(), at);
  std::memcpy(copy.data() + at, &crc, sizeof(crc));
  return copy;
}

std::string load_error(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  const auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(!model.ok());
  return model.status().message();
}

}  // namespace

// Issue 32 defect 12a: the unigram model walks the vocabulary forward from every text
// position as long as an entry continues, so a 50,000-character piece made 100 KB of text
// take 13.5 s. Entries are now at most kMaxTokenBytes: the converter and the loader refuse
// longer ones, and a piece at the bound costs 1024 steps per position (milliseconds here).
TEST_CASE("a vocabulary entry over kMaxTokenBytes is refused; a unigram piece at the bound stays linear") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Unigram;
  spec.unk_id = 0;
  spec.vocab = {"<unk>", "\xE2\x96\x81", "a", std::string(50000, 'a')};
  spec.scores = {0.0f, -1.0f, -5.0f, -1.0f};
  ModelWriter w;
  w.set_tokenizer(spec);
  const auto refused = w.finish();
  REQUIRE(!refused.ok());
  CHECK(std::string(refused.status().message()).find("is 50000 bytes") != std::string::npos);

  // The longest piece the engine takes, forged one byte longer (its NUL becomes an 'a', the
  // padding after it the NUL).
  spec.vocab[3] = std::string(kMaxTokenBytes, 'a');
  const std::vector<uint8_t> bytes = tokenizer_model(spec);
  const std::vector<uint8_t> longer = forged(bytes, [](uint8_t* copy, const Model& model) {
    const flatbuffers::String* s = model.schema().tokenizer()->vocab()->Get(3);
    const size_t at = static_cast<size_t>(reinterpret_cast<const uint8_t*>(s) - model.bytes());
    REQUIRE(copy[at + 4 + kMaxTokenBytes + 1] == 0);
    const uint32_t length = kMaxTokenBytes + 1;
    std::memcpy(copy + at, &length, sizeof(length));
    copy[at + 4 + kMaxTokenBytes] = 'a';
  });
  CHECK(load_error(longer).find("over 1024 bytes") != std::string::npos);

  // 20 pieces of the bound's length: the text's dummy prefix, then the long piece 20 times.
  testing::LoadedTokenizer l;
  testing::open_tokenizer(bytes, &l);
  const std::vector<int32_t> ids = encode(*l.tokenizer, std::string(20 * kMaxTokenBytes, 'a'));
  std::vector<int32_t> expected(21, 3);
  expected[0] = 1;
  CHECK(ids == expected);
}

namespace {

// The added tokens' ids at every match in `text` (leftmost-longest, by set lookups from the
// longest length down), the rest of the text as its characters' ids.
std::vector<int32_t> reference_added(const TokenizerSpec& spec, const std::string& text) {
  std::map<std::string, int32_t> added;
  size_t longest = 0;
  for (const TokenizerSpec::Added& a : spec.added_tokens) {
    added.emplace(spec.vocab[size_t(a.id)], a.id);
    longest = std::max(longest, spec.vocab[size_t(a.id)].size());
  }
  const auto ids = ids_of(spec);
  std::vector<int32_t> out;
  for (size_t i = 0; i < text.size();) {
    size_t length = std::min(longest, text.size() - i);
    while (length > 0 && added.count(text.substr(i, length)) == 0) --length;
    if (length > 0) {
      out.push_back(added.at(text.substr(i, length)));
      i += length;
    } else {
      out.push_back(ids.at(text.substr(i++, 1)));
    }
  }
  return out;
}

}  // namespace

// Issue 32 defect 12b: every added token was compared at every text position, so 50,000 of
// them made 11 KB of text take 2.9 s (200 KB: 27 s; this 1 MB text: over two minutes).
// They are now walked in string order by binary searches: O(log n) where none starts, the
// whole text in a fraction of a second. The loader refuses added tokens out of that order.
TEST_CASE("50,000 added tokens are matched leftmost-longest in time linear in the text") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.unk_id = 0;
  spec.vocab = {"<unk>"};
  for (char c : std::string("abc<|>t0123456789")) spec.vocab.push_back(std::string(1, c));
  // "<|tN|>" for N < 50,000, and "<|tN" for N < 100: prefixes of others, so longest wins.
  std::vector<std::string> tokens;
  for (int n = 0; n < 50000; ++n) tokens.push_back("<|t" + std::to_string(n) + "|>");
  for (int n = 0; n < 100; ++n) tokens.push_back("<|t" + std::to_string(n));
  std::mt19937 rng(32);
  std::shuffle(tokens.begin(), tokens.end(), rng);  // the writer sorts them
  for (const std::string& t : tokens) {
    spec.added_tokens.push_back({static_cast<int32_t>(spec.vocab.size()), false, false});
    spec.vocab.push_back(t);
  }
  // Whole tokens, cut ones and letters.
  std::string text;
  while (text.size() < 1000000) {
    const std::string& t = tokens[rng() % tokens.size()];
    const unsigned kind = rng() % 3;
    const std::string letters(1 + rng() % 4, static_cast<char>('a' + rng() % 3));
    text += kind == 0 ? t : kind == 1 ? t.substr(0, 1 + rng() % t.size()) : letters;
  }
  testing::LoadedTokenizer l;
  const std::vector<uint8_t> bytes = tokenizer_model(spec);
  testing::open_tokenizer(bytes, &l);
  const std::vector<int32_t> ids = encode(*l.tokenizer, text);
  CHECK(ids.size() > 200000);
  CHECK(ids == reference_added(spec, text));

  // Two added tokens swapped in the file: out of order. (Ids from 1: an id of 0, the
  // default, is not stored.)
  spec.vocab = {"<unk>", "x", "y"};
  spec.added_tokens = {{1, false, false}, {2, false, false}};
  const std::vector<uint8_t> swapped = forged(tokenizer_model(spec), [](uint8_t* copy, const Model& model) {
    const auto& added = *model.schema().tokenizer()->added_tokens();
    const auto id_field = [&](uint32_t k) {  // generated tables inherit flatbuffers::Table privately
      return reinterpret_cast<const flatbuffers::Table*>(added.Get(k))->GetAddressOf(fb::AddedToken::VT_ID);
    };
    const uint8_t* first = id_field(0);
    const uint8_t* second = id_field(1);
    REQUIRE((first != nullptr && second != nullptr));
    const int32_t x = 1, y = 2;
    std::memcpy(copy + (first - model.bytes()), &y, sizeof(y));
    std::memcpy(copy + (second - model.bytes()), &x, sizeof(x));
  });
  CHECK(load_error(swapped).find("added token 1 is missing, over 1024 bytes or out of order") != std::string::npos);
}
