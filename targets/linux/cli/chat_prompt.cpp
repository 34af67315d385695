#include "cli/chat_prompt.h"

#include "focal/chat.h"
#include "focal/tokenizer.h"

namespace focal {
namespace cli {

Result<std::vector<int32_t>> chat_prompt_ids(const Model& model, const std::vector<ChatTurn>& turns) {
  Result<ChatFormat> format = ChatFormat::from_model(model);
  if (!format.ok()) return format.status();
  Result<Tokenizer> tokenizer = Tokenizer::from_model(model);
  if (!tokenizer.ok()) return tokenizer.status();
  std::vector<ChatMessage> messages;
  for (const ChatTurn& t : turns) messages.push_back({t.role.c_str(), t.content.data(), t.content.size()});
  std::string text(format->rendered_bytes_bound(messages.data(), messages.size()), '\0');
  Result<size_t> rendered = format->render(messages.data(), messages.size(), true, &text[0], text.size());
  if (!rendered.ok()) return rendered.status();
  text.resize(rendered.value());
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  std::vector<int32_t> ids(4 * text.size() + 16);  // at most a few ids per byte (NFC can grow text threefold)
  Result<size_t> n = tokenizer->encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(),
                                       scratch.size() * 8);
  if (!n.ok()) return n.status();
  ids.resize(n.value());
  return ids;
}

}  // namespace cli
}  // namespace focal
