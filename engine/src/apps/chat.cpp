#include "focal/chat.h"

#include <cstring>

#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/unicode.h"
#include "focal_generated.h"

namespace focal {
namespace {

size_t size_of(const flatbuffers::String* s) { return s == nullptr ? 0 : s->size(); }

// Python's str.isspace(), which jinja's trim filter strips: White_Space, and the
// information separators U+001C..U+001F that Python counts as well.
bool python_space(uint32_t cp) { return tokenizer::is_white_space(cp) || (cp >= 0x1C && cp <= 0x1F); }

// The text without surrounding whitespace, as [*begin, *end).
void trim(const char* text, size_t bytes, size_t* begin, size_t* end) {
  *begin = 0;
  while (*begin < bytes) {
    uint32_t cp = 0;
    const size_t n = tokenizer::utf8_decode(text, bytes, *begin, &cp);
    if (!python_space(cp)) break;
    *begin += n;
  }
  *end = bytes;
  while (*end > *begin) {
    size_t start = *end - 1;  // the start of the last character
    while (start > *begin && (static_cast<uint8_t>(text[start]) & 0xC0) == 0x80) --start;
    uint32_t cp = 0;
    tokenizer::utf8_decode(text, *end, start, &cp);
    if (!python_space(cp)) break;
    *end = start;
  }
}

// Appends bytes to out[*written..capacity); false when they do not fit.
struct Output {
  char* out;
  size_t capacity, written;
  bool fits = true;

  void add(const char* bytes, size_t n) {
    if (!fits || n > capacity - written) {
      fits = false;
      return;
    }
    if (n > 0) std::memcpy(out + written, bytes, n);
    written += n;
  }
  void add(const flatbuffers::String* s) {
    if (s != nullptr) add(s->data(), s->size());
  }
  void add_text(const char* text, size_t bytes, bool trimmed) {
    size_t begin = 0, end = bytes;
    if (trimmed) trim(text, bytes, &begin, &end);
    add(text + begin, end - begin);
  }
};

bool is_role(const ChatMessage& m, const char* role) { return m.role != nullptr && std::strcmp(m.role, role) == 0; }

}  // namespace

Result<ChatFormat> ChatFormat::from_model(const Model& model) {
  const fb::Tokenizer* t = model.schema().tokenizer();
  if (t == nullptr || t->chat_format() == nullptr) {
    return Status::error(StatusCode::kInvalidArgument,
                         "the model has no chat format (its tokenizer_config.json had no chat_template focal knows)");
  }
  return ChatFormat(t->chat_format());
}

const char* ChatFormat::name() const { return f_->name() != nullptr ? f_->name()->c_str() : ""; }

size_t ChatFormat::rendered_bytes_bound(const ChatMessage* messages, size_t count) const {
  size_t bound = size_of(f_->bos()) + size_of(f_->system_prefix()) + size_of(f_->system_suffix()) +
                 size_of(f_->default_system()) + size_of(f_->generation_prompt()) +
                 size_of(f_->final_assistant_prefix());
  const size_t turn = size_of(f_->user_prefix()) + size_of(f_->user_suffix()) + size_of(f_->assistant_prefix()) +
                      size_of(f_->assistant_suffix());
  for (size_t i = 0; i < count; ++i) bound += turn + messages[i].content_bytes;
  return bound;
}

Result<size_t> ChatFormat::render(const ChatMessage* messages, size_t count, bool add_generation_prompt, char* out,
                                  size_t capacity) const {
  if ((messages == nullptr && count > 0) || (out == nullptr && capacity > 0)) {
    return Status::error(StatusCode::kInvalidArgument, "render: null messages or output");
  }
  for (size_t i = 0; i < count; ++i) {
    const ChatMessage& m = messages[i];
    if (m.content == nullptr && m.content_bytes > 0) {
      return Status::error(StatusCode::kInvalidArgument, "chat message %zu has null content", i);
    }
    if (!is_role(m, "user") && !is_role(m, "assistant") && !(is_role(m, "system") && i == 0)) {
      return Status::error(StatusCode::kInvalidArgument,
                           "chat message %zu: the role must be user or assistant (system: the first message only)", i);
    }
  }
  const bool has_system = count > 0 && is_role(messages[0], "system");
  const size_t first_turn = has_system ? 1 : 0;
  if (f_->system_in_first_user() && has_system && (count < 2 || !is_role(messages[1], "user"))) {
    return Status::error(StatusCode::kInvalidArgument,
                         "the %s format puts the system message into the first user message: a user message must follow it",
                         name());
  }
  Output o{out, capacity, 0};
  o.add(f_->bos());
  const bool default_system = !has_system && size_of(f_->default_system()) > 0;
  if (!f_->system_in_first_user() && (has_system || default_system || f_->system_always())) {
    o.add(f_->system_prefix());
    if (has_system) o.add_text(messages[0].content, messages[0].content_bytes, f_->trim_system());
    if (default_system) o.add(f_->default_system());
    o.add(f_->system_suffix());
  }
  const bool final_assistant = count > first_turn && is_role(messages[count - 1], "assistant") &&
                               size_of(f_->final_assistant_prefix()) > 0;
  for (size_t i = first_turn; i < count; ++i) {
    const bool user = is_role(messages[i], "user");
    if (final_assistant && i + 1 == count) {
      o.add(f_->final_assistant_prefix());
      size_t skip = 0;
      while (skip < messages[i].content_bytes && messages[i].content[skip] == '\n') ++skip;
      o.add_text(messages[i].content + skip, messages[i].content_bytes - skip, f_->trim_messages());
      o.add(f_->assistant_suffix());
      continue;
    }
    o.add(user ? f_->user_prefix() : f_->assistant_prefix());
    if (f_->system_in_first_user() && has_system && i == first_turn) {
      o.add_text(messages[0].content, messages[0].content_bytes, f_->trim_system());
      o.add(f_->system_suffix());
    }
    o.add_text(messages[i].content, messages[i].content_bytes, f_->trim_messages());
    o.add(user ? f_->user_suffix() : f_->assistant_suffix());
  }
  if (add_generation_prompt || f_->generation_prompt_always()) o.add(f_->generation_prompt());
  if (!o.fits) return Status::error(StatusCode::kResourceExhausted, "the chat prompt is longer than %zu bytes", capacity);
  return o.written;
}

}  // namespace focal
