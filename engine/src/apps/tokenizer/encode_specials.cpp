// Tokenizer::encode (added tokens first, then the model on the text between them) and
// encode_for_model (the post-processor's template around one text or a pair).
#include <cstring>

#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {
namespace {

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// The string of the k-th added token, and its byte at `depth` (-1 past its end).
int added_byte(const fb::Tokenizer& t, size_t k, size_t depth) {
  const int32_t id = t.added_tokens()->Get(static_cast<uint32_t>(k))->id();
  const flatbuffers::String& s = *t.vocab()->Get(static_cast<uint32_t>(id));
  return depth < s.size() ? static_cast<uint8_t>(s.c_str()[depth]) : -1;
}

// The first added token in [lo, hi) whose byte at depth is > c (they share the bytes
// before depth, so they are sorted by this one).
size_t first_above(const fb::Tokenizer& t, size_t lo, size_t hi, size_t depth, int c) {
  while (lo < hi) {
    const size_t mid = lo + (hi - lo) / 2;
    if (added_byte(t, mid, depth) <= c) lo = mid + 1; else hi = mid;
  }
  return lo;
}

// The longest added token text[i..] begins with, or null (tokenizers' leftmost-longest
// match: the scan goes left to right and takes the longest at the first position any
// matches). The added tokens are in string order (checked at load), so those beginning
// with text[i, i + d) are a range, narrowed byte by byte with two binary searches (a token
// that ends there sorts first): a position no token starts with costs O(log n), any
// position at most kMaxTokenBytes times that.
const fb::AddedToken* added_token_at(const fb::Tokenizer& t, const char* text, size_t bytes, size_t i,
                                     bool parse_special, size_t* length) {
  const fb::AddedToken* best = nullptr;
  *length = 0;
  size_t lo = 0, hi = t.added_tokens()->size();
  for (size_t depth = 0; i + depth < bytes && lo < hi; ++depth) {
    const int c = static_cast<uint8_t>(text[i + depth]);
    lo = first_above(t, lo, hi, depth, c - 1);
    hi = first_above(t, lo, hi, depth, c);
    if (lo < hi && added_byte(t, lo, depth + 1) < 0 &&
        (parse_special || !t.added_tokens()->Get(static_cast<uint32_t>(lo))->special())) {
      best = t.added_tokens()->Get(static_cast<uint32_t>(lo));
      *length = depth + 1;
    }
  }
  return best;
}

Status too_many(size_t capacity) {
  return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
}

}  // namespace

Result<size_t> Tokenizer::encode(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* scratch,
                                 size_t scratch_bytes) const {
  if ((text == nullptr && bytes > 0) || (ids == nullptr && capacity > 0)) {
    return Status::error(StatusCode::kInvalidArgument, "encode: null text or ids");
  }
  if (t_->kind() != fb::TokenizerKind_Characters &&
      (scratch == nullptr || reinterpret_cast<uintptr_t>(scratch) % 8 != 0 ||
       scratch_bytes < encode_scratch_bytes(bytes))) {
    return Status::error(StatusCode::kInvalidArgument, "encode: scratch must be 8-byte aligned and hold %zu bytes",
                         encode_scratch_bytes(bytes));
  }
  size_t count = 0;
  // Encodes text[from, to) through the model, after the ids so far.
  const auto segment = [&](size_t from, size_t to) -> Status {
    Result<size_t> n = encode_model(text + from, to - from, ids + count, capacity - count, scratch);
    if (!n.ok()) return n.status();
    count += n.value();
    return Status();
  };
  if (t_->added_tokens() == nullptr || t_->added_tokens()->size() == 0) {
    FOCAL_RETURN_IF_ERROR(segment(0, bytes));
    return count;
  }
  size_t start = 0;  // where the text the model gets next begins
  for (size_t i = 0; i < bytes;) {
    size_t length = 0;
    const fb::AddedToken* token = added_token_at(*t_, text, bytes, i, parse_special_, &length);
    if (token == nullptr) {
      ++i;
      continue;
    }
    size_t end = i;
    while (token->lstrip() && end > start && is_space(text[end - 1])) --end;
    FOCAL_RETURN_IF_ERROR(segment(start, end));
    if (count == capacity) return too_many(capacity);
    ids[count++] = token->id();
    i += length;
    while (token->rstrip() && i < bytes && is_space(text[i])) ++i;
    start = i;
  }
  FOCAL_RETURN_IF_ERROR(segment(start, bytes));
  return count;
}

Result<size_t> Tokenizer::encode_for_model(const char* text, size_t bytes, const char* pair, size_t pair_bytes,
                                           int32_t* ids, size_t capacity, void* scratch,
                                           size_t scratch_bytes) const {
  const flatbuffers::Vector<int32_t>* steps = pair != nullptr ? t_->template_pair() : t_->template_single();
  static const int32_t kPlain[2] = {-1, -2};  // no template: the ids alone, A then B
  const int32_t* step = steps != nullptr ? steps->data() : kPlain;
  const size_t step_count = steps != nullptr ? steps->size() : (pair != nullptr ? 2 : 1);
  size_t count = 0;
  for (size_t s = 0; s < step_count; ++s) {
    if (step[s] >= 0) {
      if (count == capacity) return too_many(capacity);
      ids[count++] = step[s];
      continue;
    }
    const bool first = step[s] == -1;
    if (!first && pair == nullptr) continue;  // a single text's template names only A
    Result<size_t> n = encode(first ? text : pair, first ? bytes : pair_bytes, ids + count, capacity - count,
                              scratch, scratch_bytes);
    if (!n.ok()) return n.status();
    count += n.value();
  }
  return count;
}

}  // namespace focal
