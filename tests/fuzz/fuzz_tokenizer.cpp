// libFuzzer: arbitrary bytes as text for every tokenizer kind: the byte-level BPE
// (demo/story's vocabulary), whose decoding must give back the bytes exactly (it is
// lossless), and WordPiece and the unigram model (tests/tokenizers' vocabularies), which
// must encode any text within well-sized buffers and decode every id they produce.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Loaded bpe = load(focal::convert::read_tokenizer(std::string("bpe:") + FOCAL_SOURCE_DIR +
                                                                "/demo/story/vocab.json:" + FOCAL_SOURCE_DIR +
                                                                "/demo/story/merges.txt")
                                     .value());
  static const focal::Tokenizer tokenizer = focal::Tokenizer::from_model(*bpe.model).value();
  const char* text = reinterpret_cast<const char*>(data);
  std::vector<int32_t> ids(size + 1);
  std::vector<uint64_t> scratch(focal::Tokenizer::encode_scratch_bytes(size) / 8 + 1);
  auto n = tokenizer.encode(text, size, ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  if (!n.ok()) std::abort();  // enough room for any text: must not fail
  std::vector<char> decoded;
  char piece[128];
  for (size_t i = 0; i < n.value(); ++i) {
    auto m = tokenizer.decode_token(ids[i], piece, sizeof(piece));
    if (!m.ok()) std::abort();
    decoded.insert(decoded.end(), piece, piece + m.value());
  }
  if (decoded.size() != size || (size > 0 && std::memcmp(decoded.data(), data, size) != 0)) std::abort();

  static const Loaded wordpiece = load(focal::convert::read_tokenizer(std::string("wordpiece:") + FOCAL_SOURCE_DIR +
                                                                      "/tests/tokenizers/kjv_wordpiece.txt:lowercase")
                                           .value());
  static const Loaded unigram = load(
      focal::convert::read_tokenizer(std::string("unigram:") + FOCAL_SOURCE_DIR + "/tests/tokenizers/kjv_unigram.vocab")
          .value());
  for (const Loaded* other : {&wordpiece, &unigram}) {
    const focal::Tokenizer t = focal::Tokenizer::from_model(*other->model).value();
    auto m = t.encode(text, size, ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
    if (!m.ok()) std::abort();
    for (size_t i = 0; i < m.value(); ++i) {
      if (!t.decode_token(ids[i], piece, sizeof(piece)).ok()) std::abort();
    }
  }
  return 0;
}
