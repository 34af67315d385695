// focal_chat_render: a conversation in the model's stored chat format (focal::ChatFormat).
#include <vector>

#include "c_api_internal.h"
#include "focal/chat.h"

using namespace focal;

extern "C" {

focal_status focal_chat_render(const focal_model* model, const focal_chat_message* messages, size_t count,
                               int add_generation_prompt, char* text, size_t capacity, size_t* text_bytes) noexcept {
  FOCAL_C_REQUIRE(model);
  FOCAL_C_REQUIRE(text_bytes);
  *text_bytes = 0;
  if (count > 0) FOCAL_C_REQUIRE(messages);
  FOCAL_C_TRY {
    auto format = ChatFormat::from_model(model->model);
    if (!format.ok()) return capi::fail(format.status());
    std::vector<ChatMessage> turns(count);
    for (size_t i = 0; i < count; ++i) {
      if (messages[i].role == nullptr || (messages[i].content == nullptr && messages[i].content_bytes > 0)) {
        return FOCAL_C_FAIL(FOCAL_INVALID_ARGUMENT, "chat message %zu has a NULL role or content", i);
      }
      turns[i] = {messages[i].role, messages[i].content, messages[i].content_bytes};
    }
    if (text == nullptr && capacity == 0) {
      *text_bytes = format->rendered_bytes_bound(turns.data(), count);
      return FOCAL_OK;
    }
    FOCAL_C_REQUIRE(text);
    auto n = format->render(turns.data(), count, add_generation_prompt != 0, text, capacity);
    if (!n.ok()) return capi::fail(n.status());
    *text_bytes = n.value();
    return FOCAL_OK;
  }
  FOCAL_C_CATCH
}

}  // extern "C"
