// Chat prompts in the model's own format: the ChatFormat the converter recognized in
// tokenizer_config.json's chat_template (converter/src/tokenizers/chat_template.h) and
// stored with the tokenizer, rendered by concatenation, as transformers'
// apply_chat_template(messages, add_generation_prompt=True, tokenize=False) renders the
// template. A view over the model's bytes: no allocation; the caller gives the output.
// The rendered text holds the model's special tokens as text: encode it with
// Tokenizer::encode (special tokens parsed, none added), as apply_chat_template does.
#pragma once

#include <cstddef>

#include "focal/model.h"
#include "focal/status.h"

namespace focal {

namespace fb {
struct ChatFormat;
}

struct ChatMessage {
  const char* role;  // "system" (first message only), "user" or "assistant"; NUL-terminated
  const char* content;  // UTF-8, content_bytes long
  size_t content_bytes;
};

class ChatFormat {
 public:
  // kInvalidArgument when the model stores no chat format (no template, or one the
  // converter did not recognize).
  static Result<ChatFormat> from_model(const Model& model);

  const char* name() const;  // "llama3", "llama3.1", "chatml", "gemma"

  // A capacity render() always fits in for these messages.
  size_t rendered_bytes_bound(const ChatMessage* messages, size_t count) const;

  // The prompt text of the conversation, then the assistant's opening when
  // add_generation_prompt (always, when the template writes it unasked). kInvalidArgument for an unknown role, a system message after
  // the first, or (Gemma) a system message not followed by a user message;
  // kResourceExhausted when `capacity` bytes are too few.
  Result<size_t> render(const ChatMessage* messages, size_t count, bool add_generation_prompt, char* out,
                        size_t capacity) const;

 private:
  explicit ChatFormat(const fb::ChatFormat* f) : f_(f) {}
  const fb::ChatFormat* f_;
};

}  // namespace focal
