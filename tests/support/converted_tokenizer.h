// Test helpers for tokenizers read by the converter: the tokenizer a --tokenizer spec
// names (convert::read_tokenizer), written into a model file and opened, and encode() or
// encode_for_model() of one text with the engine's message kept when it fails.
#pragma once

#include <doctest/doctest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model_writer.h"
#include "support/tokenizer_calls.h"
#include "tokenizers/tokenizer_files.h"

namespace focal {
namespace testing {

inline std::unique_ptr<LoadedTokenizer> open_spec(TokenizerSpec spec) {
  ModelWriter w;
  w.set_tokenizer(std::move(spec));
  auto bytes = w.finish();
  REQUIRE_MESSAGE(bytes.ok(), bytes.status().message());
  auto loaded = std::make_unique<LoadedTokenizer>();
  open_tokenizer(bytes.value(), loaded.get());
  return loaded;
}

inline std::unique_ptr<LoadedTokenizer> load_converted_tokenizer(const std::string& spec_text) {
  auto spec = convert::read_tokenizer(spec_text);
  REQUIRE_MESSAGE(spec.ok(), spec.status().message());
  return open_spec(std::move(spec).value());
}

// At most 2 ids per text byte and 16 more (the template's): every tokenizer here stays within.
inline std::optional<std::vector<int32_t>> try_encode(const Tokenizer& t, const std::string& text, bool for_model,
                                                      std::string* error) {
  std::vector<int32_t> ids(2 * text.size() + 16);
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  auto n = for_model ? t.encode_for_model(text.data(), text.size(), nullptr, 0, ids.data(), ids.size(), scratch.data(),
                                          scratch.size() * 8)
                     : t.encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  if (!n.ok()) {
    *error = n.status().message();
    return std::nullopt;
  }
  ids.resize(n.value());
  return ids;
}

}  // namespace testing
}  // namespace focal
