// Shared by the tokenizer file harnesses (fuzz_tokenizer_json, fuzz_sentencepiece_model):
// the files a harness writes live in one temporary directory per process, and whatever
// tokenizer the converter reads from them is written with ModelWriter, loaded, and used
// as focal generate and focal chat use it: a short fixed text encoded (alone and for the
// model), every id decoded, and the chat format, when there is one, rendered and encoded.
// Errors are fine (a hostile file may be refused anywhere); a crash, a sanitizer report,
// a decode of a produced id failing or a render into its own bound failing is a finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "focal/chat.h"
#include "focal/model.h"
#include "focal/tokenizer.h"
#include "model_writer.h"

namespace fuzz_tokenizers {

// A directory of this process's own, removed at exit.
inline const std::string& scratch_dir() {
  static const std::string dir = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "focal_fuzz.XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    static std::string removed;
    removed = pattern;
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(removed, ignored);
    });
    return pattern;
  }();
  return dir;
}

inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
}

inline void encode_and_decode(const focal::Tokenizer& tokenizer, const char* text, size_t bytes) {
  std::vector<int32_t> ids(8 * bytes + 64);
  std::vector<uint64_t> scratch(focal::Tokenizer::encode_scratch_bytes(bytes) / 8 + 1);
  std::vector<char> piece;
  for (int for_model = 0; for_model < 2; ++for_model) {
    auto n = for_model ? tokenizer.encode_for_model(text, bytes, nullptr, 0, ids.data(), ids.size(), scratch.data(),
                                                    scratch.size() * 8)
                       : tokenizer.encode(text, bytes, ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
    if (!n.ok()) continue;  // e.g. a character vocabulary without an unknown token
    for (size_t i = 0; i < n.value(); ++i) {
      piece.resize(tokenizer.decoded_bytes_bound(ids[i]) + 1);
      if (!tokenizer.decode_token(ids[i], piece.data(), piece.size()).ok()) std::abort();  // its own id
    }
  }
}

// The converter's tokenizer through the writer, the loader and the run-time tokenizer.
inline void exercise(focal::TokenizerSpec spec) {
  focal::ModelWriter writer;
  writer.set_tokenizer(std::move(spec));
  auto file = writer.finish();
  if (!file.ok()) return;
  void* bytes = std::aligned_alloc(64, (file->size() + 64) / 64 * 64);
  std::memcpy(bytes, file->data(), file->size());
  {
    auto model = focal::Model::from_bytes(bytes, file->size());
    if (model.ok()) {
      auto tokenizer = focal::Tokenizer::from_model(model.value());
      if (tokenizer.ok()) {
        static const char kText[] =
            "Hello world, the LORD said:  caf\xc3\xa9 \xe4\xbd\xa0\xe5\xa5\xbd \xf0\x9f\x99\x82\n\t<s> [CLS] "
            "<|im_start|>user<|endoftext|> 12345 don't";
        encode_and_decode(tokenizer.value(), kText, sizeof(kText) - 1);
        auto chat = focal::ChatFormat::from_model(model.value());
        if (chat.ok()) {
          static const char kSystem[] = "Be brief.", kUser[] = "Hi there", kAssistant[] = "Hello!",
                            kAgain[] = "\xe4\xbd\xa0\xe5\xa5\xbd?";
          const focal::ChatMessage messages[] = {{"system", kSystem, sizeof(kSystem) - 1},
                                                 {"user", kUser, sizeof(kUser) - 1},
                                                 {"assistant", kAssistant, sizeof(kAssistant) - 1},
                                                 {"user", kAgain, sizeof(kAgain) - 1}};
          for (size_t first = 0; first < 2; ++first) {  // with and without the system message
            const size_t count = 4 - first;
            std::vector<char> out(chat->rendered_bytes_bound(messages + first, count));
            auto n = chat->render(messages + first, count, true, out.data(), out.size());
            if (!n.ok()) std::abort();  // valid messages, a capacity from its own bound
            encode_and_decode(tokenizer.value(), out.data(), n.value());
          }
        }
      }
    }
  }
  std::free(bytes);
}

}  // namespace fuzz_tokenizers
