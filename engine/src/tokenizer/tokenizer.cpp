#include "focal/tokenizer.h"

#include <cstring>

#include "focal_generated.h"
#include "tokenizer/byte_unicode.h"
#include "tokenizer/pretokenize.h"

namespace focal {
namespace {

int compare(const flatbuffers::String& a, const char* b, size_t b_bytes) {
  const size_t n = a.size() < b_bytes ? a.size() : b_bytes;
  const int c = std::memcmp(a.data(), b, n);
  if (c != 0) return c;
  return a.size() < b_bytes ? -1 : (a.size() > b_bytes ? 1 : 0);
}

}  // namespace

Result<Tokenizer> Tokenizer::from_model(const Model& model, bool target) {
  const fb::Tokenizer* t = target ? model.schema().target_tokenizer() : model.schema().tokenizer();
  if (t == nullptr || t->vocab() == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "the model has no %stokenizer", target ? "target " : "");
  }
  if (t->kind() != fb::TokenizerKind_ByteLevelBpe && t->kind() != fb::TokenizerKind_Characters) {
    return Status::error(StatusCode::kUnsupported, "tokenizer kind %s is not supported by this engine",
                         fb::EnumNameTokenizerKind(t->kind()));
  }
  Tokenizer tokenizer(t);
  if (t->kind() == fb::TokenizerKind_ByteLevelBpe) {
    for (uint32_t b = 0; b < 256; ++b) {
      char utf8[2];
      const size_t n = tokenizer::utf8_encode(tokenizer::byte_to_code_point(b), utf8);
      tokenizer.byte_token_[b] = tokenizer.find(utf8, n);
      if (tokenizer.byte_token_[b] < 0) {
        return Status::error(StatusCode::kInvalidModel, "byte-level BPE vocabulary lacks the token of byte %u",
                             static_cast<unsigned>(b));
      }
    }
  }
  return tokenizer;
}

size_t Tokenizer::vocab_size() const { return t_->vocab()->size(); }
int32_t Tokenizer::bos_id() const { return t_->bos_id(); }
int32_t Tokenizer::eos_id() const { return t_->eos_id(); }
int32_t Tokenizer::unk_id() const { return t_->unk_id(); }
const char* Tokenizer::kind() const {
  return t_->kind() == fb::TokenizerKind_ByteLevelBpe ? "byte-level-bpe" : "characters";
}

// Binary search over sorted_vocab (verified at load to be a permutation in string order).
int32_t Tokenizer::find(const char* text, size_t bytes) const {
  const auto& order = *t_->sorted_vocab();
  size_t lo = 0, hi = order.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const int32_t id = order.Get(static_cast<uint32_t>(mid));
    const int c = compare(*t_->vocab()->Get(static_cast<uint32_t>(id)), text, bytes);
    if (c == 0) return id;
    if (c < 0) lo = mid + 1; else hi = mid;
  }
  return -1;
}

// The token `left` and `right` merge into, with its rank; -1 when they do not merge.
int32_t Tokenizer::merge(int32_t left, int32_t right, int32_t* rank) const {
  const auto& rules = *t_->merge_rules();
  size_t lo = 0, hi = rules.size();
  while (lo < hi) {
    const size_t mid = (lo + hi) / 2;
    const fb::MergeRule& r = *rules.Get(static_cast<uint32_t>(mid));
    if (r.left() == left && r.right() == right) {
      *rank = r.rank();
      return r.merged();
    }
    if (r.left() < left || (r.left() == left && r.right() < right)) lo = mid + 1; else hi = mid;
  }
  return -1;
}

// Each pre-token starts as its bytes' tokens; the adjacent pair with the lowest rank
// merges until none can (GPT-2's bpe()). Quadratic in a pre-token's length, which is a
// word: fine.
Result<size_t> Tokenizer::encode_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity, int32_t* work,
                                     size_t work_count) const {
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    const size_t length = tokenizer::next_pretoken(text, bytes, i);
    if (length > work_count) return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    size_t n = length;
    for (size_t k = 0; k < length; ++k) work[k] = byte_token_[static_cast<uint8_t>(text[i + k])];
    while (n > 1) {
      int32_t best_rank = INT32_MAX, best_token = -1;
      size_t best_at = 0;
      for (size_t k = 0; k + 1 < n; ++k) {
        int32_t rank = 0;
        const int32_t merged = merge(work[k], work[k + 1], &rank);
        if (merged >= 0 && rank < best_rank) {
          best_rank = rank;
          best_token = merged;
          best_at = k;
        }
      }
      if (best_token < 0) break;
      work[best_at] = best_token;
      std::memmove(work + best_at + 1, work + best_at + 2, (n - best_at - 2) * sizeof(int32_t));
      --n;
    }
    if (count + n > capacity) {
      return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
    }
    std::memcpy(ids + count, work, n * sizeof(int32_t));
    count += n;
    i += length;
  }
  return count;
}

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

Result<size_t> Tokenizer::encode(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* scratch,
                                 size_t scratch_bytes) const {
  if ((text == nullptr && bytes > 0) || (ids == nullptr && capacity > 0)) {
    return Status::error(StatusCode::kInvalidArgument, "encode: null text or ids");
  }
  if (t_->kind() == fb::TokenizerKind_Characters) return encode_characters(text, bytes, ids, capacity);
  if (scratch == nullptr || reinterpret_cast<uintptr_t>(scratch) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument, "encode: scratch must be 4-byte aligned");
  }
  return encode_bpe(text, bytes, ids, capacity, static_cast<int32_t*>(scratch), scratch_bytes / sizeof(int32_t));
}

Result<size_t> Tokenizer::decode_token(int32_t id, char* out, size_t capacity) const {
  if (id < 0 || static_cast<size_t>(id) >= vocab_size()) {
    return Status::error(StatusCode::kOutOfRange, "token id %d outside the vocabulary of %zu", static_cast<int>(id),
                         vocab_size());
  }
  const flatbuffers::String& s = *t_->vocab()->Get(static_cast<uint32_t>(id));
  if (t_->kind() == fb::TokenizerKind_Characters) {
    if (s.size() > capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    std::memcpy(out, s.data(), s.size());
    return static_cast<size_t>(s.size());
  }
  size_t written = 0;
  for (size_t i = 0; i < s.size();) {
    uint32_t cp = 0;
    i += tokenizer::utf8_decode(s.data(), s.size(), i, &cp);
    const int b = tokenizer::code_point_to_byte(cp);
    if (b < 0) continue;  // not a byte character (a special token's text): no bytes
    if (written == capacity) return Status::error(StatusCode::kResourceExhausted, "decode buffer too small");
    out[written++] = static_cast<char>(b);
  }
  return written;
}

}  // namespace focal
