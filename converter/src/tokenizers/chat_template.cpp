#include "tokenizers/chat_template.h"

#include <nlohmann/json.hpp>
#include <regex>

#include "assign_or_return.h"
#include "json/json_file.h"

namespace focal {
namespace convert {
namespace {

using nlohmann::json;

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

ChatFormatSpec llama3(const std::string& bos, bool dated) {
  ChatFormatSpec f;
  f.name = dated ? "llama3.1" : "llama3";
  f.bos = bos;
  f.system_prefix = "<|start_header_id|>system<|end_header_id|>\n\n";
  if (dated) f.system_prefix += "Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n";
  f.system_suffix = f.user_suffix = f.assistant_suffix = "<|eot_id|>";
  f.user_prefix = "<|start_header_id|>user<|end_header_id|>\n\n";
  f.assistant_prefix = f.generation_prompt = "<|start_header_id|>assistant<|end_header_id|>\n\n";
  f.system_always = dated;
  f.trim_system = f.trim_messages = true;
  return f;
}

ChatFormatSpec gemma(const std::string& bos) {
  ChatFormatSpec f;
  f.name = "gemma";
  f.bos = bos;
  f.system_suffix = "\n\n";  // after the system text, inside the first user turn
  f.user_prefix = "<start_of_turn>user\n";
  f.assistant_prefix = f.generation_prompt = "<start_of_turn>model\n";
  f.user_suffix = f.assistant_suffix = "<end_of_turn>\n";
  f.system_in_first_user = true;
  f.trim_messages = true;
  return f;
}

// The text of a Jinja string literal's body: \n, \t, \', \" and \\ unescaped.
std::string unescape(const std::string& body) {
  std::string out;
  for (size_t i = 0; i < body.size(); ++i) {
    if (body[i] != '\\' || i + 1 == body.size()) {
      out += body[i];
      continue;
    }
    const char c = body[++i];
    out += c == 'n' ? '\n' : c == 't' ? '\t' : c;
  }
  return out;
}

ChatFormatSpec chatml(const std::string& chat_template) {
  ChatFormatSpec f;
  f.name = "chatml";
  f.system_prefix = "<|im_start|>system\n";
  f.user_prefix = "<|im_start|>user\n";
  f.assistant_prefix = f.generation_prompt = "<|im_start|>assistant\n";
  f.system_suffix = f.user_suffix = f.assistant_suffix = "<|im_end|>\n";
  // A default system turn the template writes whole as one literal (Qwen2.5, SmolLM2):
  // '<|im_start|>system\nTEXT<|im_end|>\n'.
  static const std::regex kDefault(R"('<\|im_start\|>system\\n([^'+]*)<\|im_end\|>\\n')");
  std::smatch match;
  if (std::regex_search(chat_template, match, kDefault)) f.default_system = unescape(match[1].str());
  // Qwen3 writes a reasoning block into the assistant message that ends the conversation
  // (empty without reasoning_content) and drops its text's leading newlines.
  if (chat_template.find("last_query_index") != std::string::npos &&
      chat_template.find("\\n<think>\\n") != std::string::npos) {
    f.final_assistant_prefix = "<|im_start|>assistant\n<think>\n\n</think>\n\n";
  }
  return f;
}

// tokenizer_config.json writes special tokens as a string or as {"content": ...}.
std::string token_text(const json& token) {
  if (token.is_string()) return token.get<std::string>();
  if (token.is_object() && token.value("content", json()).is_string()) return token["content"].get<std::string>();
  return "";
}

}  // namespace

void recognize_chat_template(const std::string& chat_template, const std::string& bos_token, TokenizerSpec* spec) {
  if (has(chat_template, "<|start_header_id|>") && has(chat_template, "<|eot_id|>")) {
    spec->chat = llama3(bos_token, has(chat_template, "Cutting Knowledge Date: December 2023"));
  } else if (has(chat_template, "<start_of_turn>") && has(chat_template, "first_user_prefix")) {
    spec->chat = gemma(bos_token);
  } else if (has(chat_template, "<|im_start|>") && has(chat_template, "<|im_end|>")) {
    spec->chat = chatml(chat_template);
  }
  // Llama 3's first template ends with the assistant header unconditionally.
  if (spec->chat) spec->chat->generation_prompt_always = !has(chat_template, "add_generation_prompt");
  spec->chat_note = spec->chat ? "chat_template: " + spec->chat->name + " format (focal chat, generate --chat)"
                               : "chat_template: not a format focal knows (llama3, llama3.1, chatml, gemma): "
                                 "focal chat is not available for this model";
}

Status read_chat_template(const std::string& tokenizer_json_path, TokenizerSpec* spec) {
  const size_t slash = tokenizer_json_path.find_last_of('/');
  const std::string path =
      (slash == std::string::npos ? std::string() : tokenizer_json_path.substr(0, slash + 1)) + "tokenizer_config.json";
  if (!file_exists(path)) return Status();
  FOCAL_ASSIGN_OR_RETURN(const json config, read_json_object(path, "tokenizer_config.json"));
  json chat_template = config.value("chat_template", json());
  if (chat_template.is_array()) {  // [{"name": "default", "template": ...}, {"name": "tool_use", ...}]
    json chosen;
    for (const json& named : chat_template) {
      if (named.is_object() && named.value("name", json()) == "default") chosen = named.value("template", json());
    }
    chat_template = chosen;
  }
  if (!chat_template.is_string()) return Status();
  recognize_chat_template(chat_template.get<std::string>(), token_text(config.value("bos_token", json())), spec);
  return Status();
}

}  // namespace convert
}  // namespace focal
