// `focal convert` as a library call: checkpoints and a preset in, verified .focal bytes
// out. The CLI (targets/linux/cli/convert.cpp) and the tests call this.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "focal/status.h"
#include "focal/tensor.h"

namespace focal {
namespace convert {

struct ConvertOptions {
  std::string preset;  // a preset name, or empty with `spec`
  std::string spec;    // a declarative model spec (JSON file; converter/README.md)
  std::vector<std::string> weights;  // checkpoint files, searched in order
  std::string config;                // config.json; empty: none
  DType dtype = DType::kF32;         // Dense weights: kF32, kF16, kBF16 or kI8
  int64_t max_batch = 1;
  int64_t max_seq = 0;  // 0: the preset's default
  bool strict = false;  // unused checkpoint tensors are an error, not a warning
  // A self-test stored in the model: DIR/inputs/<input>.npy for every model input and
  // DIR/expected/<output>.npy for the outputs to check (any subset), compared with
  // |got - want| <= atol + rtol |want|. The converter runs it on what it wrote, and
  // `focal verify` reruns it wherever the model is deployed. Empty: none.
  std::string self_test_dir;
  // Tokenizers stored in the model (tokenizers/tokenizer_files.h); empty: none.
  std::string tokenizer;
  std::string target_tokenizer;
  float self_test_atol = 1e-4f;
  float self_test_rtol = 1e-4f;
  // Called with a short line at each stage (reading, building with the share of
  // checkpoint tensors taken so far, writing, verifying); null: silent.
  std::function<void(const std::string&)> progress;
};

struct Converted {
  std::vector<uint8_t> bytes;
  std::vector<std::string> warnings;
  int self_tests = 0;                 // stored and passed on the host
  float self_test_worst_ratio = 0.0f;  // worst error over its tolerance (<= 1)
};

Result<Converted> convert_checkpoint(const ConvertOptions& options);

// "f32", "f16", "bf16", "int8" -> the Dense weight type; false for anything else.
bool parse_weight_dtype(const std::string& text, DType* dtype);

}  // namespace convert
}  // namespace focal
