// The converter's one JSON reader (converter/src/json/json_file.h) at every door a file
// comes in by: too deep a nesting is refused with the file named before the parser (or
// any code walking its values) recurses, and fields of the wrong JSON type are errors
// naming the file and its part, never an exception's raw text or an abort.
#include <doctest/doctest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "hf/folder_tokenizer.h"
#include "hf/hf_folder.h"
#include "hf/shard_index.h"
#include "json/json_file.h"
#include "readers/checkpoint.h"
#include "tokenizers/tokenizer_files.h"

using namespace focal;
using namespace focal::convert;

namespace {

// 150,000 nested arrays (300 KB): deep enough to overflow the stack of any recursion
// per level, as they did before the bound.
std::string deep_json(size_t depth = 150000) { return std::string(depth, '[') + std::string(depth, ']'); }

struct ScratchDir {
  std::string path;
  ScratchDir() {
    char pattern[] = "/tmp/focal-json-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    path = pattern;
  }
  ~ScratchDir() { (void)std::system(("rm -rf '" + path + "'").c_str()); }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string file = path + "/" + name;
    std::ofstream(file, std::ios::binary) << text;
    return file;
  }
};

void check_message(const Status& status, const std::string& names, const char* says) {
  const std::string message = status.message();
  CAPTURE(message);
  CHECK(!status.ok());
  CHECK(message.find(names) != std::string::npos);
  CHECK(message.find(says) != std::string::npos);
}

const char kTooDeep[] = "nests arrays and objects more than 128 levels deep";

// `--hf` on `dir`, whose tokenizer.json cannot be read: the folder's vocab.txt is taken
// instead, and the warning gives `reason`.
void check_passed_over_to_vocab_txt(const ScratchDir& dir, const char* reason) {
  dir.write("vocab.txt", "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n");
  std::vector<std::string> warnings;
  const auto found = find_folder_tokenizer(dir.path, &warnings);
  REQUIRE_MESSAGE(found.ok(), found.status().message());
  CHECK(found.value().rfind("wordpiece:", 0) == 0);
  REQUIRE(!warnings.empty());
  CHECK(warnings[0].find(reason) != std::string::npos);
}

}  // namespace

TEST_CASE("json_nesting counts brackets outside strings, escapes included, and stops past the limit") {
  const auto nesting = [](const std::string& s, size_t limit = 1000) { return json_nesting(s.data(), s.size(), limit); };
  CHECK(nesting("{}") == 1);
  CHECK(nesting("{\"a\": [1, {\"b\": []}]}") == 4);
  CHECK(nesting("[\"[[[[\", \"\\\"[[[\"]") == 1);  // brackets and escaped quotes inside strings
  CHECK(nesting("\"\\\\\" [[]]") == 2);            // an escaped backslash ends before the quote
  CHECK(nesting(deep_json(), 128) == 129);         // stops counting once past the limit
  CHECK(nesting("]]]][[") == 2);                   // unbalanced closers never go below 0
  const std::string at_limit = deep_json(128);
  CHECK(parse_json(at_limit.data(), at_limit.size(), "test").ok());
  const std::string past = deep_json(129);
  check_message(parse_json(past.data(), past.size(), "test text").status(), "test text", kTooDeep);
}

TEST_CASE("hostile: deep JSON is refused, naming the file, at every entry point of the converter") {
  ScratchDir dir;
  const std::string deep = dir.write("deep.json", deep_json());
  check_message(read_json_file(deep, "config").status(), "config '" + deep + "'", kTooDeep);
  check_message(read_tokenizer("hf:" + deep).status(), deep, kTooDeep);            // --tokenizer hf:
  check_message(read_tokenizer("chars:" + deep).status(), deep, kTooDeep);         // a chars: tokenizer
  check_message(read_shard_index(deep).status(), deep, kTooDeep);                  // model.safetensors.index.json

  ConvertOptions spec;  // --spec
  spec.spec = deep;
  check_message(convert_checkpoint(spec).status(), deep, kTooDeep);

  // --hf: generation_config.json is read with the folder.
  ScratchDir hf;
  hf.write("config.json", "{\"model_type\": \"bert\"}");
  hf.write("model.safetensors", "");
  const std::string generation = hf.write("generation_config.json", deep_json());
  check_message(read_hf_folder(hf.path).status(), generation, kTooDeep);

  // --hf: a deep tokenizer.json is passed over, with the reason, for the folder's vocab.txt.
  hf.write("tokenizer.json", "{\"model\": " + deep_json() + "}");
  check_passed_over_to_vocab_txt(hf, kTooDeep);

  // A safetensors header whose dtype is deep JSON (its error message dumps the value).
  const std::string header = "{\"w\": {\"dtype\": " + deep_json() + ", \"shape\": [1], \"data_offsets\": [0, 4]}}";
  std::string file(8, '\0');
  const uint64_t size = header.size();
  std::memcpy(&file[0], &size, 8);
  file += header + std::string(4, '\0');
  const std::string safetensors = dir.write("deep.safetensors", file);
  check_message(read_checkpoint(safetensors).status(), safetensors, kTooDeep);
}

TEST_CASE("hostile: tokenizer.json fields of the wrong JSON type are errors naming the file and part") {
  ScratchDir dir;
  // BertNormalizer's lowercase as a string: nlohmann's type_error.302 surfaced raw before,
  // and aborted `--hf` instead of passing over to the folder's vocab.txt.
  const std::string json = dir.write(
      "tokenizer.json",
      R"({"model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
          "max_input_chars_per_word": 100, "vocab": {"[UNK]": 0, "hello": 1}},
          "normalizer": {"type": "BertNormalizer", "lowercase": "yes"},
          "pre_tokenizer": {"type": "BertPreTokenizer"}})");
  const Status status = read_tokenizer("hf:" + json).status();
  check_message(status, "tokenizer.json '" + json + "'", "a field has the wrong type (type must be boolean");
  CHECK(std::string(status.message()).find("[json.exception") == std::string::npos);

  check_passed_over_to_vocab_txt(dir, "wrong type");

  const std::string chars = dir.write("chars.json", "[\"a\", 7, \"b\"]");
  check_message(read_tokenizer("chars:" + chars).status(), chars, "token 1 is not a string");
}
