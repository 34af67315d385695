// Test helpers around focal::Tokenizer: a tokenizer opened from a model file's bytes,
// encode() with buffers sized for any text, and the decoded text of a list of ids.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/tokenizer.h"
#include "support/aligned_buffer.h"

namespace focal {
namespace testing {

struct LoadedTokenizer {
  std::unique_ptr<AlignedBuffer> file;  // the model views these bytes
  std::unique_ptr<Model> model;
  std::unique_ptr<Tokenizer> tokenizer;
};

// Loads the model file `bytes` (a tokenizer and no ops) into `l`.
inline void open_tokenizer(const std::vector<uint8_t>& bytes, LoadedTokenizer* l) {
  l->file = std::make_unique<AlignedBuffer>(bytes);
  auto model = Model::from_bytes(l->file->data(), l->file->size());
  REQUIRE_MESSAGE(model.ok(), std::string(model.status().message()));
  l->model = std::make_unique<Model>(std::move(model).value());
  auto tokenizer = Tokenizer::from_model(*l->model);
  REQUIRE_MESSAGE(tokenizer.ok(), std::string(tokenizer.status().message()));
  l->tokenizer = std::make_unique<Tokenizer>(tokenizer.value());
}

inline std::vector<int32_t> encode_text(const Tokenizer& t, const std::string& text) {
  std::vector<int32_t> ids(text.size() + 1);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  auto n = t.encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  REQUIRE_MESSAGE(n.ok(), n.status().message());
  ids.resize(n.value());
  return ids;
}

inline std::string decode_ids(const Tokenizer& t, const std::vector<int32_t>& ids) {
  std::string text;
  char piece[256];
  for (int32_t id : ids) {
    auto n = t.decode_token(id, piece, sizeof(piece));
    REQUIRE(n.ok());
    text.append(piece, n.value());
  }
  return text;
}

}  // namespace testing
}  // namespace focal
