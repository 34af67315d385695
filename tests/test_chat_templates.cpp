// Real chat templates (tokenizer_config.json of Llama 3, 3.1, 3.2, Qwen2.5, Qwen3 and
// Gemma 3, cached by scripts/fetch-data) as the converter recognizes them and the engine
// renders them (focal/chat.h), against python3-jinja2 rendering the templates themselves
// (tests/tokenizers/render_chat_templates.py, run by ctest first): byte for byte, for
// conversations with and without a system message, padded and non-ASCII texts, and without
// the generation prompt. The rendered prompt then encodes with each special token as one id.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "focal/c_api.h"
#include "focal/chat.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "support/converted_tokenizer.h"
#include "support/tokenizer_calls.h"
#include "tokenizers/chat_template.h"
#include "tokenizers/tokenizer_files.h"

using namespace focal;

namespace {

const size_t kFamilies = 6;  // render_chat_templates.py's FAMILIES

std::string rendered_path() {
  const char* p = std::getenv("FOCAL_CHAT_TEMPLATES_RENDERED");
  return p != nullptr ? p : "";
}

}  // namespace

TEST_CASE("real chat templates render byte for byte as python3-jinja2 renders them") {
  std::ifstream in(rendered_path());
  REQUIRE_MESSAGE(in.good(), "FOCAL_CHAT_TEMPLATES_RENDERED names render_chat_templates.py's output (ctest sets it)");
  const nlohmann::json families = nlohmann::json::parse(in);
  if (families.size() < kFamilies) {
    const std::string message = "chat templates: " + std::to_string(families.size()) + " of " +
                                std::to_string(kFamilies) + " tokenizer_config.json files found: run scripts/fetch-data";
    const char* ci = std::getenv("CI");
    if (ci != nullptr && std::string(ci) == "true") FAIL(message);
    MESSAGE("skipped: " << message);
    return;
  }
  std::string table;
  for (const nlohmann::json& family : families) {
    const std::string name = family.at("family").get<std::string>();
    CAPTURE(name);
    auto spec = convert::read_tokenizer("hf:" + family.at("tokenizer_json").get<std::string>());
    REQUIRE_MESSAGE(spec.ok(), spec.status().message());
    REQUIRE_MESSAGE(spec->chat.has_value(), spec->chat_note);
    const auto loaded = testing::open_spec(std::move(spec).value());
    auto format = ChatFormat::from_model(*loaded->model);
    REQUIRE_MESSAGE(format.ok(), format.status().message());
    size_t equal = 0, cases = 0;
    for (const nlohmann::json& c : family.at("cases")) {
      std::vector<std::string> roles, contents;
      for (const nlohmann::json& m : c.at("messages")) {
        roles.push_back(m.at("role").get<std::string>());
        contents.push_back(m.at("content").get<std::string>());
      }
      std::vector<ChatMessage> messages;
      for (size_t i = 0; i < roles.size(); ++i) messages.push_back({roles[i].c_str(), contents[i].data(), contents[i].size()});
      std::vector<char> out(format->rendered_bytes_bound(messages.data(), messages.size()));
      auto n = format->render(messages.data(), messages.size(), c.at("add_generation_prompt").get<bool>(), out.data(),
                              out.size());
      REQUIRE_MESSAGE(n.ok(), n.status().message());
      const std::string got(out.data(), n.value()), want = c.at("rendered").get<std::string>();
      CHECK_MESSAGE(got == want, "got\n", got, "\nwant\n", want);
      equal += got == want;
      ++cases;
      // The prompt's special tokens are single ids (encode parses them; apply_chat_template
      // encodes with add_special_tokens=False).
      const std::vector<int32_t> ids = testing::encode_text(*loaded->tokenizer, got);
      CHECK(ids.size() < got.size());
    }
    table += name + " (" + format->name() + "): " + std::to_string(equal) + " of " + std::to_string(cases) + " equal\n";
  }
  std::printf("chat templates rendered as python3-jinja2 renders them:\n%s", table.c_str());
  std::fflush(stdout);
}

TEST_CASE("chat formats refuse what their templates cannot write") {
  TokenizerSpec spec;
  spec.kind = fb::TokenizerKind_Characters;
  spec.vocab = {"a", "b"};
  convert::recognize_chat_template("{{ '<start_of_turn>user' }}{% set first_user_prefix = '' %}", "<bos>", &spec);
  REQUIRE(spec.chat.has_value());
  const auto loaded = testing::open_spec(spec);
  auto format = ChatFormat::from_model(*loaded->model);
  REQUIRE(format.ok());
  std::vector<char> out(256);
  const ChatMessage system_only[] = {{"system", "s", 1}};
  CHECK(format->render(system_only, 1, true, out.data(), out.size()).status().code() == StatusCode::kInvalidArgument);
  const ChatMessage tool[] = {{"tool", "x", 1}};
  CHECK(format->render(tool, 1, true, out.data(), out.size()).status().code() == StatusCode::kInvalidArgument);
  const ChatMessage late_system[] = {{"user", "u", 1}, {"system", "s", 1}};
  CHECK(format->render(late_system, 2, true, out.data(), out.size()).status().code() == StatusCode::kInvalidArgument);
  const ChatMessage user[] = {{"user", "hello", 5}};
  CHECK(format->render(user, 1, true, out.data(), 10).status().code() == StatusCode::kResourceExhausted);
  auto n = format->render(user, 1, true, out.data(), out.size());
  REQUIRE(n.ok());
  CHECK(std::string(out.data(), n.value()) == "<bos><start_of_turn>user\nhello<end_of_turn>\n<start_of_turn>model\n");

  // The C API renders the same, sizes its output, and refuses what render() refuses.
  focal_model* model = nullptr;
  REQUIRE(focal_model_load_bytes(loaded->file->data(), loaded->file->size(), FOCAL_LOAD_COPY, &model) == FOCAL_OK);
  const focal_chat_message c_user[] = {{"user", "hello", 5}};
  size_t needed = 0, written = 0;
  CHECK(focal_chat_render(model, c_user, 1, 1, nullptr, 0, &needed) == FOCAL_OK);
  std::vector<char> c_out(needed);
  CHECK(focal_chat_render(model, c_user, 1, 1, c_out.data(), c_out.size(), &written) == FOCAL_OK);
  CHECK(std::string(c_out.data(), written) == std::string(out.data(), n.value()));
  CHECK(focal_chat_render(model, c_user, 1, 1, c_out.data(), 4, &written) == FOCAL_RESOURCE_EXHAUSTED);
  const focal_chat_message c_tool[] = {{"tool", "x", 1}};
  CHECK(focal_chat_render(model, c_tool, 1, 1, c_out.data(), c_out.size(), &written) == FOCAL_INVALID_ARGUMENT);
  const focal_chat_message c_null[] = {{nullptr, "x", 1}};
  CHECK(focal_chat_render(model, c_null, 1, 1, c_out.data(), c_out.size(), &written) == FOCAL_INVALID_ARGUMENT);
  CHECK(focal_chat_render(nullptr, c_user, 1, 1, c_out.data(), c_out.size(), &written) == FOCAL_INVALID_ARGUMENT);
  CHECK(focal_chat_render(model, c_user, 1, 1, c_out.data(), c_out.size(), nullptr) == FOCAL_INVALID_ARGUMENT);
  CHECK(focal_model_free(model) == FOCAL_OK);

  TokenizerSpec unknown;
  convert::recognize_chat_template("{% for m in messages %}{{ m.content }}{% endfor %}", "", &unknown);
  CHECK(!unknown.chat.has_value());
  CHECK(unknown.chat_note.find("not a format focal knows") != std::string::npos);
}
