// A conversation as the prompt ids a chat model takes: rendered in the model's stored
// chat format (focal/chat.h) with the generation prompt, then encoded with the special
// tokens in it parsed and none added, as transformers' apply_chat_template(tokenize=True)
// does. Shared by `focal generate --chat` and `focal chat`.
#pragma once

#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/status.h"

namespace focal {
namespace cli {

struct ChatTurn {
  std::string role;  // "system", "user", "assistant"
  std::string content;
};

Result<std::vector<int32_t>> chat_prompt_ids(const Model& model, const std::vector<ChatTurn>& turns);

}  // namespace cli
}  // namespace focal
