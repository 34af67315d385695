// libFuzzer: arbitrary bytes as a SentencePiece .model file (a protobuf, read with
// Debian's protobuf-lite), read as `focal convert --tokenizer sentencepiece:SPM.model`
// reads it; what reads is written, loaded and used (tokenizer_exercise.h).
#include <cstdint>
#include <string>

#include "tokenizer_exercise.h"
#include "tokenizers/tokenizer_files.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string path = fuzz_tokenizers::scratch_dir() + "/tokenizer.model";
  fuzz_tokenizers::write_file(path, data, size);
  auto spec = focal::convert::read_tokenizer("sentencepiece:" + path);
  if (spec.ok()) fuzz_tokenizers::exercise(std::move(spec.value()));
  return 0;
}
