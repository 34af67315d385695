// The character vocabularies' encoder: one id per UTF-8 character.
#include "apps/tokenizer/byte_unicode.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {

// Character vocabularies: each UTF-8 character its own entry (an ASCII letter lowered first
// when the tokenizer lowercases), unk or an error when the vocabulary lacks it.
Result<size_t> Tokenizer::encode_characters(const char* text, size_t bytes, int32_t* ids, size_t capacity) const {
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    uint32_t cp = 0;
    const size_t n = tokenizer::utf8_decode(text, bytes, i, &cp);
    char lowered = text[i];
    if (t_->lowercase() && n == 1 && lowered >= 'A' && lowered <= 'Z') lowered = char(lowered - 'A' + 'a');
    int32_t id = n == 1 ? find(&lowered, 1) : find(text + i, n);
    if (id < 0) id = t_->unk_id();
    if (id < 0) {
      return Status::error(StatusCode::kInvalidArgument, "character U+%04X at byte %zu is not in the vocabulary",
                           static_cast<unsigned>(cp), i);
    }
    if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    ids[count++] = id;
    i += n;
  }
  return count;
}

}  // namespace focal
