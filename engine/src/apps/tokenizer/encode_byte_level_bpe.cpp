// Byte-level BPE's encoder (GPT-2, Llama 3, Qwen): NFC when asked, the pre-tokenizer's
// split, then each pre-token merged from its bytes' tokens.
#include "apps/tokenizer/bpe_merge.h"
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/pretokenize.h"
#include "apps/tokenizer/unicode.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {

using tokenizer::BpeWork;
using tokenizer::kNone;

// Byte-level BPE (GPT-2, Llama 3, Qwen): the text, NFC-normalized when the tokenizer
// says so, split by its pre-tokenizer regex; each pre-token is one vocabulary entry when
// ignore_merges finds it whole, else starts as its bytes' tokens and merges. Scratch
// (encode_scratch_bytes): the normalized text (at most 3 bytes per text byte), then the
// normalization's work or BpeWork for the longest pre-token, 48 bytes per byte of it.
Result<size_t> Tokenizer::encode_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                                     size_t work_bytes) const {
  if (t_->normalization() == fb::TextNormalization_Nfc) {
    char* normal = static_cast<char*>(work);
    const size_t offset = (tokenizer::kNormalizedBytesPerByte * bytes + 8) / 8 * 8;
    uint32_t* words = reinterpret_cast<uint32_t*>(static_cast<char*>(work) + offset);
    if (offset + 4 * tokenizer::normalization_work_words(bytes) > work_bytes) {
      return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    }
    const size_t n = tokenizer::to_nfc(text, bytes, normal, words);
    return encode_pretokens(normal, n, ids, capacity, words, work_bytes - offset);
  }
  return encode_pretokens(text, bytes, ids, capacity, work, work_bytes);
}

Result<size_t> Tokenizer::encode_pretokens(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                                           size_t work_bytes) const {
  const auto pattern = static_cast<tokenizer::SplitPattern>(t_->split_pattern());
  size_t count = 0;
  for (size_t i = 0; i < bytes;) {
    const size_t length = tokenizer::next_pretoken(pattern, text, bytes, i);
    if (length > work_bytes / BpeWork::kBytesPerSymbol || length >= kNone) {
      return Status::error(StatusCode::kResourceExhausted, "tokenizer scratch too small");
    }
    if (t_->ignore_merges()) {  // the pre-token's byte characters (2 bytes each at most) looked up whole
      char* mapped = static_cast<char*>(work);
      size_t mapped_bytes = 0;
      for (size_t k = 0; k < length; ++k) {
        mapped_bytes += tokenizer::utf8_encode(tokenizer::byte_to_code_point(static_cast<uint8_t>(text[i + k])),
                                               mapped + mapped_bytes);
      }
      const int32_t whole = find(mapped, mapped_bytes);
      if (whole >= 0) {
        if (count == capacity) return Status::error(StatusCode::kResourceExhausted, "more than %zu tokens", capacity);
        ids[count++] = whole;
        i += length;
        continue;
      }
    }
    BpeWork w(work, length);
    for (size_t k = 0; k < length; ++k) {
      w.token[k] = byte_token_[static_cast<uint8_t>(text[i + k])];
      w.offset[k] = static_cast<uint32_t>(k);
    }
    FOCAL_RETURN_IF_ERROR(merge_symbols(static_cast<uint32_t>(length), work, ids, &count, capacity, text + i, length));
    i += length;
  }
  return count;
}

}  // namespace focal
