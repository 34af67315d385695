// SentencePiece BPE's encoder (Llama-2, Phi-3, Gemma): the normalized text's characters
// merged by rank.
#include "apps/tokenizer/bpe_merge.h"
#include "apps/tokenizer/byte_unicode.h"
#include "apps/tokenizer/sentencepiece_text.h"
#include "focal/tokenizer.h"
#include "focal_generated.h"

namespace focal {

using tokenizer::BpeWork;

// SentencePiece's BPE (Llama-2, Phi-3, Gemma): the normalized text's characters, each its
// piece or unknown, merge by rank (the converter ranked the merges by the merged pieces'
// scores, or took tokenizer.json's order). Scratch: the normalized text (3 bytes + 3 per
// text byte, rounded to 8), then BpeWork for at most one symbol per text byte plus the
// prefix: 51 bytes + 59 per byte, within encode_scratch_bytes().
Result<size_t> Tokenizer::encode_sentencepiece_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                                   uint8_t* work) const {
  char* normal = reinterpret_cast<char*>(work);
  const size_t n = tokenizer::normalize_sentencepiece(text, bytes, t_->add_dummy_prefix(),
                                                      t_->remove_extra_whitespaces(), normal);
  void* symbols = work + (tokenizer::normalized_bytes(bytes) + 8) / 8 * 8;
  uint32_t count = 0;
  for (size_t i = 0; i < n; ++count) {
    uint32_t cp = 0;
    i += tokenizer::utf8_decode(normal, n, i, &cp);
  }
  BpeWork w(symbols, count);
  for (size_t i = 0, k = 0; i < n; ++k) {
    uint32_t cp = 0;
    const size_t length = tokenizer::utf8_decode(normal, n, i, &cp);
    w.token[k] = find(normal + i, length);
    if (w.token[k] == t_->unk_id()) w.token[k] = -1;  // "<unk>" typed in the text is unknown too
    w.offset[k] = static_cast<uint32_t>(i);
    i += length;
  }
  size_t written = 0;
  FOCAL_RETURN_IF_ERROR(merge_symbols(count, symbols, ids, &written, capacity, normal, n));
  return written;
}

}  // namespace focal
