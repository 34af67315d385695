// focal tokenize MODEL TEXT: the ids the model's stored tokenizer gives a text, as
// llama.cpp's llama-tokenize prints them ("id -> 'piece'"), or only the ids (--ids), or
// ids and the vocabulary's tokens as JSON (--json: transformers' input_ids and
// convert_ids_to_tokens). Special tokens are added as the model takes them
// (encode_for_model: [CLS] ... [SEP], <s> ...) unless --no-add-special; special tokens
// typed in the text are recognized unless --no-parse-special.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "cli/printable.h"
#include "cli/text_file.h"
#include "focal/tokenizer.h"

namespace focal {
namespace cli {
namespace {

const char* kUsage =
    "usage: focal tokenize MODEL.focal (TEXT | --prompt TEXT | --file FILE) [--pair TEXT]\n"
    "                      [--no-add-special] [--no-parse-special] [--target] [--ids | --json]\n"
    "The token ids the model's tokenizer gives TEXT, one per line as 'id -> 'piece''.\n"
    "  -m MODEL             the model (or the first argument)\n"
    "  --prompt, -p TEXT    the text (or the argument after the model)\n"
    "  --file, -f FILE      the text from a file ('-': standard input), one trailing newline dropped\n"
    "  --pair TEXT          a second text, placed as the model's template places pairs\n"
    "  --no-add-special     the text's ids alone, without the special tokens the model adds\n"
    "  --no-parse-special   special tokens written in the text are plain text\n"
    "  --target             the target tokenizer of a sequence-to-sequence model\n"
    "  --ids                print only the ids, as [1, 2, 3]\n"
    "  --json               print {\"input_ids\": [...], \"tokens\": [...]}\n";

struct Options {
  const char* model = nullptr;
  std::string text, pair;
  bool has_text = false, has_pair = false;
  bool add_special = true, parse_special = true, target = false, ids_only = false, json = false;
};

Status take_text(const char* value, Options* o) {
  if (value == nullptr) return Status();  // the missing value is recorded already
  if (o->has_text) return Status::error(StatusCode::kInvalidArgument, "give the text once");
  o->text = value;
  o->has_text = true;
  return Status();
}

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    const char* value = nullptr;
    if (args.text("--prompt", &value) || args.text("-p", &value)) {
      args.fail(take_text(value, o));
    } else if (args.text("--file", &value) || args.text("-f", &value)) {
      std::string text;
      if (value != nullptr) args.fail(read_text_file("--file", value, &text));
      if (value != nullptr && args.status().ok()) args.fail(take_text(text.c_str(), o));
    } else if (args.text("-m", &value)) {
      if (value != nullptr && o->model != nullptr) args.fail(Status::error(StatusCode::kInvalidArgument, "two models given"));
      if (value != nullptr) o->model = value;
    } else if (args.text("--pair", &value)) {
      if (value != nullptr) o->pair = value;
      o->has_pair = value != nullptr;
    } else if (args.flag("--no-add-special")) {
      o->add_special = false;
    } else if (args.flag("--no-parse-special")) {
      o->parse_special = false;
    } else if (args.flag("--target")) {
      o->target = true;
    } else if (args.flag("--ids")) {
      o->ids_only = true;
    } else if (args.flag("--json")) {
      o->json = true;
    } else if (o->model == nullptr) {
      if (!args.positional(&o->model)) args.refuse_current();
    } else if (!o->has_text && args.positional(&value)) {
      args.fail(take_text(value, o));
    } else {
      args.refuse_current();
    }
  }
  if (!args.status().ok()) return args.status();
  if (o->model == nullptr) return missing_argument("MODEL.focal");
  if (!o->has_text) return missing_argument("TEXT (or --prompt, --file)");
  if (o->ids_only && o->json) return Status::error(StatusCode::kInvalidArgument, "give --ids or --json, not both");
  if (o->has_pair && !o->add_special) {
    return Status::error(StatusCode::kInvalidArgument, "--pair places two texts in the model's template: drop --no-add-special");
  }
  return Status();
}

Result<std::vector<int32_t>> encode(const Tokenizer& tokenizer, const Options& o) {
  const size_t longest = o.pair.size() > o.text.size() ? o.pair.size() : o.text.size();
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(longest) / 8 + 1);
  // At most one id per byte of the text as the tokenizer normalizes it (NFC: up to three
  // bytes per byte; SentencePiece: a prefix piece per stretch between added tokens), and
  // the template's few.
  std::vector<int32_t> ids(16 * (o.text.size() + o.pair.size()) + 64);  // as generate's input_ids
  Result<size_t> n = o.add_special
                         ? tokenizer.encode_for_model(o.text.data(), o.text.size(), o.has_pair ? o.pair.data() : nullptr,
                                                      o.pair.size(), ids.data(), ids.size(), scratch.data(),
                                                      scratch.size() * 8)
                         : tokenizer.encode(o.text.data(), o.text.size(), ids.data(), ids.size(), scratch.data(),
                                            scratch.size() * 8);
  if (!n.ok()) return n.status();
  ids.resize(n.value());
  return ids;
}

void print_table(const Tokenizer& tokenizer, const std::vector<int32_t>& ids) {
  std::vector<char> piece;
  for (int32_t id : ids) {
    piece.resize(tokenizer.decoded_bytes_bound(id) + 1);
    const Result<size_t> n = tokenizer.decode_token(id, piece.data(), piece.size());
    const std::string text = n.ok() ? std::string(piece.data(), n.value()) : std::string();
    std::printf("%6d -> '%s'\n", static_cast<int>(id), printable(text).c_str());
  }
}

void print_json(const Tokenizer& tokenizer, const std::vector<int32_t>& ids) {
  nlohmann::json tokens = nlohmann::json::array();
  for (int32_t id : ids) {
    size_t bytes = 0;
    const char* text = tokenizer.token_text(id, &bytes);
    tokens.push_back(std::string(text != nullptr ? text : "", bytes));
  }
  const nlohmann::json out = {{"input_ids", ids}, {"tokens", tokens}};
  // Tokens are UTF-8 as the tokenizer files store them; a hostile file's bad bytes print as U+FFFD.
  std::printf("%s\n", out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
}

}  // namespace

int tokenize_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("tokenize", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  Result<Tokenizer> tokenizer = Tokenizer::from_model(loaded->model, o.target);
  if (!tokenizer.ok()) return report_failure("tokenize", tokenizer.status());
  tokenizer->set_parse_special(o.parse_special);
  const Result<std::vector<int32_t>> ids = encode(tokenizer.value(), o);
  if (!ids.ok()) return report_failure("tokenize", ids.status());
  if (o.json) {
    print_json(tokenizer.value(), ids.value());
  } else if (o.ids_only) {
    std::printf("[");
    for (size_t i = 0; i < ids->size(); ++i) std::printf("%s%d", i ? ", " : "", static_cast<int>((*ids)[i]));
    std::printf("]\n");
  } else {
    print_table(tokenizer.value(), ids.value());
  }
  return 0;
}

}  // namespace cli
}  // namespace focal
