// tokenizer_config.json's chat_template (a Jinja template) as a ChatFormatSpec the engine
// renders without a template engine. The converter does not run Jinja: it recognizes the
// template families by their markers and their known variants, and writes each family's
// format as strings:
//   llama3    <|start_header_id|> headers (Llama 3, 3.1's first template)
//   llama3.1  the same with the system block always written, opened by "Cutting Knowledge
//             Date: December 2023\nToday Date: 26 Jul 2024\n\n" (Llama 3.1, 3.2, 3.3: the
//             date the template writes when the caller gives no date_string/strftime_now)
//   chatml    <|im_start|>role ... <|im_end|> (Qwen2, 2.5, 3, SmolLM2), with the template's
//             default system text when it writes one (Qwen2.5's "You are Qwen, ...")
//   gemma     <start_of_turn>user / model, the system text opening the first user turn
// tests/test_chat_templates.cpp renders real templates with python3-jinja2 and compares
// byte for byte. Tool calls, images and "thinking" switches are outside these formats.
#pragma once

#include <string>

#include "focal/status.h"
#include "model_writer.h"

namespace focal {
namespace convert {

// Sets spec->chat (when the template is recognized) and spec->chat_note (what happened,
// for the progress line). `bos_token` is tokenizer_config.json's (null: none).
void recognize_chat_template(const std::string& chat_template, const std::string& bos_token, TokenizerSpec* spec);

// The chat_template of the tokenizer_config.json beside a tokenizer.json (none: nothing).
Status read_chat_template(const std::string& tokenizer_json_path, TokenizerSpec* spec);

}  // namespace convert
}  // namespace focal
