// PyTorch parity for every transformer family, live: tests/models/make_reference.py
// writes random-weight cases with float64 references (the write_model_cases fixture),
// each is converted here by the real converter and run by the engine. f32 stays within
// 1e-4 (support/model_checks.h states the error measure).
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>
#include <stdexcept>

#include "convert.h"
#include "support/model_checks.h"

using namespace focal;
using testing::ModelCase;

namespace {

std::vector<ModelCase> cases(const char* family) {
  const char* root = std::getenv("FOCAL_MODEL_CASES");
  auto found = root != nullptr ? testing::model_cases(root, family) : std::vector<ModelCase>{};
  REQUIRE_MESSAGE(found.size() >= 2, "fewer than 2 reference cases of ", family, ": is FOCAL_MODEL_CASES set?");
  return found;
}

// Converts the case's checkpoint with its preset (dtype "f32", "f16", "bf16" or "int8"),
// from its primary weights file or the one named.
std::unique_ptr<testing::LoadedCase> convert_case(const ModelCase& c, const std::string& dtype, int64_t max_batch,
                                                  int64_t max_seq, const std::string& file = "",
                                                  DType embedding_dtype = DType::kF32) {
  convert::ConvertOptions options;
  options.preset = c.spec.at("preset").get<std::string>();
  options.weights = {c.dir + "/" + (file.empty() ? c.spec.at("weights").get<std::string>() : file)};
  options.config = c.dir + "/config.json";
  options.max_batch = max_batch;
  options.max_seq = max_seq;
  options.strict = true;
  REQUIRE(convert::parse_weight_dtype(dtype, &options.dtype));
  options.embedding_dtype = embedding_dtype;
  auto converted = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return testing::load_model_bytes(converted->bytes);
}

void check_encoder_family(const char* family) {
  for (const ModelCase& c : cases(family)) {
    CAPTURE(c.name());
    auto loaded = convert_case(c, "f32", 4, 16);
    CHECK(testing::encoder_error(c, *loaded, "f32") <= testing::kF32Tolerance);
    CHECK(testing::encoder_rows_without_mask_error(c, *loaded) <= testing::kF32Tolerance);
  }
}

}  // namespace

TEST_CASE("BERT encoders match PyTorch on ragged batches") { check_encoder_family("bert"); }

TEST_CASE("nn.TransformerEncoder classifiers match PyTorch (pre- and post-LN, CLS and mean pooling)") {
  check_encoder_family("torch-encoder");
}

TEST_CASE("every preset converts from .pt, .safetensors and .npz, each matching PyTorch") {
  const std::pair<const char*, int64_t> families[] = {
      {"bert", 16}, {"torch-encoder", 16}, {"gpt2", 80}, {"llama", 80}, {"torch-transformer", 16}};
  for (const auto& family : families) {
    const ModelCase c = cases(family.first)[0];
    for (const auto& file : c.spec.at("weights_files")) {
      const std::string name = file.get<std::string>();
      CAPTURE(c.name());
      CAPTURE(name);
      auto loaded = convert_case(c, "f32", 4, family.second, name);
      const std::string preset = family.first;
      if (preset == "bert" || preset == "torch-encoder") {
        CHECK(testing::encoder_error(c, *loaded, name.c_str()) <= testing::kF32Tolerance);
      } else if (preset == "torch-transformer") {
        testing::check_encoder_decoder(c, *loaded);
      } else {
        testing::check_decoder(c, *loaded);
      }
    }
  }
}

TEST_CASE("declarative specs: architectures no preset covers match PyTorch") {
  for (const ModelCase& c : cases("spec")) {
    CAPTURE(c.name());
    for (const auto& file : c.spec.at("weights_files")) {
      CAPTURE(file.get<std::string>());
      convert::ConvertOptions options;
      options.spec = c.dir + "/spec.json";
      options.weights = {c.dir + "/" + file.get<std::string>()};
      options.max_batch = 4;
      options.strict = true;
      auto converted = convert::convert_checkpoint(options);
      REQUIRE_MESSAGE(converted.ok(), converted.status().message());
      auto loaded = testing::load_model_bytes(converted->bytes);
      if (c.spec.at("checks").get<std::string>() == "encoder") {
        CHECK(testing::encoder_error(c, *loaded, "spec") <= testing::kF32Tolerance);
      } else {
        testing::check_decoder(c, *loaded);
      }
    }
  }
}

TEST_CASE("spec errors name the layer and the problem") {
  ModelCase c;
  for (const ModelCase& each : cases("spec")) {
    if (each.name() == "spec_keras_encoder") c = each;
  }
  REQUIRE(!c.dir.empty());
  convert::ConvertOptions options;
  options.weights = {c.dir + "/weights.safetensors"};
  const std::string broken = c.dir + "/broken_spec.json";
  const std::pair<const char*, const char*> bad[] = {
      {R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 32]}], "outputs": ["y"],
          "layers": [{"op": "dense", "name": "d", "input": "nope", "weight": "wq"}]})",
       "layer 0 'd': reads 'nope'"},
      {R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 32]}], "outputs": ["y"],
          "layers": [{"op": "dense", "name": "d", "input": "x", "weight": "wq", "output": "y"}]})",
       "wq takes 48 inputs"},
      {R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 32]}], "outputs": ["y"],
          "layers": [{"op": "dense", "name": "d", "input": "x", "weight": "missing", "output": "y"}]})",
       "lacks"},
      {R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", "seq", 32]}], "outputs": ["y"],
          "layers": [{"op": "conv", "name": "c", "input": "x", "output": "y"}]})",
       "unknown op 'conv'"},
      // Found by fuzz_spec: a pool over a rank-2 input read past the input's dims.
      {R"({"inputs": [{"name": "x", "dtype": "f32", "shape": ["batch", 32]}], "outputs": ["y"],
          "layers": [{"op": "pool", "name": "p", "input": "x", "mode": "mean", "output": "y"}]})",
       "input has rank 2, expected 3"},
  };
  for (const auto& [text, expected] : bad) {
    const std::string wanted = expected;
    CAPTURE(wanted);
    {
      std::ofstream out(broken);
      out << text;
    }
    options.spec = broken;
    auto converted = convert::convert_checkpoint(options);
    REQUIRE(!converted.ok());
    const std::string message = converted.status().message();
    CAPTURE(message);
    CHECK(std::string(converted.status().message()).find(expected) != std::string::npos);
  }
}

TEST_CASE("a bare nn.MultiheadAttention and nn.TransformerDecoder match PyTorch") {
  for (const char* family : {"torch-mha", "torch-decoder"}) {
    for (const ModelCase& c : cases(family)) {
      CAPTURE(c.name());
      auto loaded = convert_case(c, "f32", 4, 16);
      CHECK(testing::encoder_error(c, *loaded, "f32") <= testing::kF32Tolerance);
    }
  }
}

TEST_CASE("f16, bf16 and int8 weights stay within their error bounds on BERT") {
  const ModelCase c = cases("bert")[0];
  // Bounds for these small random models: f16 keeps 11 bits, bf16 8, int8 about 7
  // per weight, with per-channel scales.
  CHECK(testing::encoder_error(c, *convert_case(c, "f16", 4, 16), "f16") <= 2e-3);
  CHECK(testing::encoder_error(c, *convert_case(c, "bf16", 4, 16), "bf16") <= 2e-2);
  CHECK(testing::encoder_error(c, *convert_case(c, "int8", 4, 16), "int8") <= 3e-2);
  // Compact token tables (--embedding-dtype): f16 rounds each input row to 11 bits, int8
  // (one scale per row) to about 7.
  CHECK(testing::encoder_error(c, *convert_case(c, "f32", 4, 16, "", DType::kF16), "f16 tables") <= 2e-3);
  CHECK(testing::encoder_error(c, *convert_case(c, "int8", 4, 16, "", DType::kF16), "int8, f16 tables") <= 3e-2);
  CHECK(testing::encoder_error(c, *convert_case(c, "f32", 4, 16, "", DType::kI8), "int8 tables") <= 2e-2);
  CHECK(testing::encoder_error(c, *convert_case(c, "int8", 4, 16, "", DType::kI8), "int8, int8 tables") <= 4e-2);
}

TEST_CASE("GPT-2 decoders: prefill and KV-cached steps match PyTorch, greedy tokens exactly") {
  for (const ModelCase& c : cases("gpt2")) {
    CAPTURE(c.name());
    testing::check_decoder(c, *convert_case(c, "f32", 1, 80));
  }
}

TEST_CASE("Llama decoders (RoPE, GQA, SwiGLU, head_dim != d/H) match PyTorch, greedy tokens exactly") {
  for (const ModelCase& c : cases("llama")) {
    CAPTURE(c.name());
    testing::check_decoder(c, *convert_case(c, "f32", 1, 80));
  }
}

TEST_CASE("nn.Transformer: encode once, decode all at once or one position at a time") {
  for (const ModelCase& c : cases("torch-transformer")) {
    CAPTURE(c.name());
    testing::check_encoder_decoder(c, *convert_case(c, "f32", 2, 16));
  }
}
