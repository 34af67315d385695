// Text to token ids and back, with the tokenizer stored in the model file: GPT-2's
// byte-level BPE, BERT's WordPiece, SentencePiece's unigram model and character-level
// vocabularies. A Tokenizer is a view over the model's
// bytes (lookups are binary searches in tables the converter sorted), so it allocates
// nothing; encoding works in caller scratch.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/model.h"
#include "focal/status.h"

namespace focal {

namespace fb {
struct Tokenizer;
}

class Tokenizer {
 public:
  // The model's tokenizer, or with `target` its target_tokenizer (a seq2seq model's output
  // side); kInvalidArgument when the model has none or of a kind this engine lacks.
  static Result<Tokenizer> from_model(const Model& model, bool target = false);

  size_t vocab_size() const;
  int32_t bos_id() const;
  int32_t eos_id() const;
  int32_t unk_id() const;
  // "byte-level-bpe", "wordpiece", "unigram", "sentencepiece-bpe", "characters"
  const char* kind() const;
  // The vocabulary's string for `id` (transformers' convert_ids_to_tokens: "Ġworld",
  // "▁the", "##ing", "<0x0A>"), its length in *bytes; null for an id outside the vocabulary.
  const char* token_text(int32_t id, size_t* bytes) const;

  // Whether special added tokens typed in the text are recognized (the default) or taken
  // as plain text (llama.cpp's parse_special = false, tokenizers' split_special_tokens).
  // Added tokens that are not special are recognized either way.
  void set_parse_special(bool parse) { parse_special_ = parse; }
  bool parse_special() const { return parse_special_; }

  // Scratch bytes encode() needs for `text_bytes` of text, for every kind: the most is
  // a unigram model with a SentencePiece character map (NFKC), which can grow the text
  // 16-fold (tokenizer/charsmap.h) and then works on it at 17 bytes per byte
  // (apps/tokenizer/encode_unigram.cpp); byte-level BPE after NFC needs 147.
  static constexpr size_t kScratchBytesPerTextByte = 272;
  static size_t encode_scratch_bytes(size_t text_bytes) { return text_bytes * kScratchBytesPerTextByte + 256; }

  // UTF-8 text to ids (no bos/eos added); scratch: 8-byte aligned, encode_scratch_bytes()
  // long (not needed for character vocabularies). Added tokens in the text become their
  // ids first (with the whitespace their lstrip/rstrip flags take), the text between them
  // goes through the model. kResourceExhausted when `capacity` ids are too few;
  // characters outside a character vocabulary become unk_id (or an error when there is none).
  Result<size_t> encode(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* scratch,
                        size_t scratch_bytes) const;

  // The ids a model takes: encode() of `text` (and of `pair`, when not null) placed in the
  // stored post-processor's template with its special tokens (BERT's [CLS] A [SEP] B [SEP],
  // Llama's <s> A, ...); without a template the ids alone (A then B). Scratch as for
  // encode() of the longer text.
  Result<size_t> encode_for_model(const char* text, size_t bytes, const char* pair, size_t pair_bytes, int32_t* ids,
                                  size_t capacity, void* scratch, size_t scratch_bytes) const;

  // The bytes of one token (a BPE token may end inside a UTF-8 character; the
  // concatenation of consecutive tokens is the decoded text). kOutOfRange for a bad id.
  Result<size_t> decode_token(int32_t id, char* out, size_t capacity) const;
  // A capacity decode_token(id, ...) always fits in: the piece's bytes plus a space
  // (0 for an id outside the vocabulary). Pieces can be long (kilobytes of whitespace or
  // a hostile file's): size the buffer by this, not by a guess.
  size_t decoded_bytes_bound(int32_t id) const;

 private:
  explicit Tokenizer(const fb::Tokenizer* t) : t_(t) {}
  int32_t find(const char* text, size_t bytes) const;  // id of the exact string, or -1
  int32_t merge(int32_t left, int32_t right, int32_t* rank) const;
  bool is_control_piece(int32_t id) const;  // unk, bos, eos or pad: unigram never matches them in text
  Result<size_t> encode_model(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* scratch) const;
  Status merge_symbols(uint32_t n, void* work, int32_t* ids, size_t* count, size_t capacity, const char* text,
                       size_t text_bytes) const;
  Result<size_t> encode_sentencepiece_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity,
                                          uint8_t* work) const;
  bool has_byte_pieces(const char* text, size_t bytes) const;
  Status emit_unknown(const char* text, size_t bytes, int32_t* ids, size_t* count, size_t capacity) const;
  Result<size_t> encode_pretokens(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                                  size_t work_bytes) const;
  Result<size_t> encode_bpe(const char* text, size_t bytes, int32_t* ids, size_t capacity, void* work,
                            size_t work_bytes) const;
  Result<size_t> encode_characters(const char* text, size_t bytes, int32_t* ids, size_t capacity) const;
  Result<size_t> encode_wordpiece(const char* text, size_t bytes, int32_t* ids, size_t capacity, char* work) const;
  Result<size_t> encode_unigram(const char* text, size_t bytes, int32_t* ids, size_t capacity, uint8_t* work) const;

  const fb::Tokenizer* t_;
  bool parse_special_ = true;
  // Byte-level BPE: the token of each byte's unicode character; byte fallback: <0xXX>, or
  // -1 where the vocabulary lacks it.
  int32_t byte_token_[256] = {};
  float min_score_ = 0.0f;        // unigram: the lowest piece score (unknowns score 10 less)
  // Unigram: the stored SentencePiece character map (checked at load), or null.
  const uint8_t* charsmap_ = nullptr;
  size_t charsmap_bytes_ = 0;
};

}  // namespace focal
