// libFuzzer: arbitrary bytes as a Hugging Face tokenizer.json and the tokenizer_config.json
// beside it, read as `focal convert --tokenizer hf:DIR/tokenizer.json` reads them (the
// bounded JSON reader, the tokenizer.json pipelines, the chat template recognizer); what
// reads is written, loaded and used (tokenizer_exercise.h). The input is the
// tokenizer.json, or the tokenizer.json, a line "--tokenizer_config.json--" and the
// tokenizer_config.json (without that line there is no tokenizer_config.json).
#include <cstdint>
#include <cstring>
#include <string>

#include "tokenizer_exercise.h"
#include "tokenizers/tokenizer_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const char kSplit[] = "\n--tokenizer_config.json--\n";
  const std::string& dir = fuzz_tokenizers::scratch_dir();
  const std::string tokenizer_json = dir + "/tokenizer.json", config = dir + "/tokenizer_config.json";
  const uint8_t* end = data + size;
  const uint8_t* split = static_cast<const uint8_t*>(memmem(data, size, kSplit, sizeof(kSplit) - 1));
  fuzz_tokenizers::write_file(tokenizer_json, data, split ? size_t(split - data) : size);
  if (split != nullptr) {
    const uint8_t* rest = split + sizeof(kSplit) - 1;
    fuzz_tokenizers::write_file(config, rest, size_t(end - rest));
  } else {
    std::remove(config.c_str());
  }
  auto spec = focal::convert::read_tokenizer("hf:" + tokenizer_json);
  if (spec.ok()) fuzz_tokenizers::exercise(std::move(spec.value()));
  return 0;
}
