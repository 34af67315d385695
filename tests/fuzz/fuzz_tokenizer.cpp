// libFuzzer: arbitrary bytes as text for every tokenizer kind: the byte-level BPE
// (demo/story's vocabulary), whose decoding must give back the bytes exactly (it is
// lossless), and WordPiece and the unigram model (tests/tokenizers' vocabularies), which
// must encode any text within well-sized buffers and decode every id they produce; so
// must SentencePiece BPE and the tokenizer.json tokenizers (added tokens matched first).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <sanitizer/asan_interface.h>

#include "focal/model.h"
#include "focal/tokenizer.h"
#include "model_writer.h"
#include "tokenizers/tokenizer_files.h"

namespace {

struct Loaded {
  void* bytes = nullptr;
  focal::Model* model = nullptr;
};

Loaded load(focal::TokenizerSpec spec) {
  focal::ModelWriter w;
  w.set_tokenizer(std::move(spec));
  auto file = w.finish();
  if (!file.ok()) std::abort();
  Loaded l;
  l.bytes = std::aligned_alloc(64, (file->size() + 64) / 64 * 64);
  std::memcpy(l.bytes, file->data(), file->size());
  l.model = new focal::Model(focal::Model::from_bytes(l.bytes, file->size()).value());
  return l;
}

// Buffers reused across inputs, instead of allocating and zeroing 64 scratch bytes per
// text byte on every call. A call gets the last `count` elements, so an access past what
// encode was promised still runs into ASan's redzone, and the unused front is poisoned.
template <typename T>
T* tail(std::vector<T>* buffer, size_t count) {
  if (buffer->size() < count) {
    ASAN_UNPOISON_MEMORY_REGION(buffer->data(), buffer->size() * sizeof(T));
    *buffer = std::vector<T>(count + count / 2);
  }
  ASAN_UNPOISON_MEMORY_REGION(buffer->data(), buffer->size() * sizeof(T));
  T* start = buffer->data() + (buffer->size() - count);
  ASAN_POISON_MEMORY_REGION(buffer->data(), (buffer->size() - count) * sizeof(T));
  return start;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Loaded bpe = load(focal::convert::read_tokenizer(std::string("bpe:") + FOCAL_SOURCE_DIR +
                                                                "/demo/story/vocab.json:" + FOCAL_SOURCE_DIR +
                                                                "/demo/story/merges.txt")
                                     .value());
  static const Loaded wordpiece = load(focal::convert::read_tokenizer(std::string("wordpiece:") + FOCAL_SOURCE_DIR +
                                                                      "/tests/tokenizers/kjv_wordpiece.txt:lowercase")
                                           .value());
  static const Loaded unigram = load(
      focal::convert::read_tokenizer(std::string("unigram:") + FOCAL_SOURCE_DIR + "/tests/tokenizers/kjv_unigram.vocab")
          .value());
  // SentencePiece BPE with byte fallback (.model and tokenizer.json, added tokens), and a
  // unigram tokenizer.json with remove_extra_whitespaces and added tokens.
  const auto file = [](const char* name) {
    return load(focal::convert::read_tokenizer(std::string(FOCAL_SOURCE_DIR) + "/tests/tokenizers/" + name).value());
  };
  static const Loaded spm_bpe = file("kjv_bpe_spm.model"), hf_bpe = file("kjv_bpe_spm.tokenizer.json"),
                      hf_unigram = file("kjv_unigram_spm.tokenizer.json");
  static const focal::Tokenizer tokenizer = focal::Tokenizer::from_model(*bpe.model).value();
  static const focal::Tokenizer others[] = {focal::Tokenizer::from_model(*wordpiece.model).value(),
                                            focal::Tokenizer::from_model(*unigram.model).value(),
                                            focal::Tokenizer::from_model(*spm_bpe.model).value(),
                                            focal::Tokenizer::from_model(*hf_bpe.model).value(),
                                            focal::Tokenizer::from_model(*hf_unigram.model).value()};
  static std::vector<int32_t> id_buffer;
  static std::vector<uint64_t> scratch_buffer;
  static std::vector<char> decoded;

  const char* text = reinterpret_cast<const char*>(data);
  const size_t id_count = size + 1;
  int32_t* ids = tail(&id_buffer, id_count);
  const size_t scratch_bytes = focal::Tokenizer::encode_scratch_bytes(size);  // a multiple of 8
  uint64_t* scratch = tail(&scratch_buffer, scratch_bytes / 8);
  auto n = tokenizer.encode(text, size, ids, id_count, scratch, scratch_bytes);
  if (!n.ok()) std::abort();  // enough room for any text: must not fail
  decoded.clear();
  char piece[128];
  for (size_t i = 0; i < n.value(); ++i) {
    auto m = tokenizer.decode_token(ids[i], piece, sizeof(piece));
    if (!m.ok()) std::abort();
    decoded.insert(decoded.end(), piece, piece + m.value());
  }
  if (decoded.size() != size || (size > 0 && std::memcmp(decoded.data(), data, size) != 0)) std::abort();

  for (const focal::Tokenizer& t : others) {
    auto m = t.encode(text, size, ids, id_count, scratch, scratch_bytes);
    if (!m.ok()) std::abort();
    for (size_t i = 0; i < m.value(); ++i) {
      if (!t.decode_token(ids[i], piece, sizeof(piece)).ok()) std::abort();
    }
  }
  return 0;
}
