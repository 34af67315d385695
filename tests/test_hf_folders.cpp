// `focal convert --hf DIR` on Hugging Face folders laid out as the hub serves them
// (tests/models/make_hf_folder_reference.py: DistilBERT, RoBERTa, XLM-R and
// sentence-transformers over BERT and DistilBERT, with float64 PyTorch references):
// each converts with the preset config.json names and matches within 1e-4 (f16 and
// int8 weights within their bounds); broken folders give errors naming what is wrong.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "convert.h"
#include "focal/tokenizer.h"
#include "support/model_checks.h"
#include "support/safetensors_writer.h"
#include "support/scratch_dir.h"

using namespace focal;
using testing::ModelCase;

namespace {

std::string folder_of(const ModelCase& c) { return c.dir + "/" + c.spec.at("folder").get<std::string>(); }

// Converts the folder with --hf alone (the preset from config.json); `*preset` is the
// one the progress line names.
Result<convert::Converted> convert_folder(const std::string& folder, const std::string& dtype, std::string* preset) {
  convert::ConvertOptions options;
  options.hf_dir = folder;
  options.max_batch = 4;
  options.strict = true;
  REQUIRE(convert::parse_weight_dtype(dtype, &options.dtype));
  options.progress = [preset](const std::string& line) {
    const std::string said = "--hf: preset ";
    if (line.rfind(said, 0) == 0) *preset = line.substr(said.size(), line.find(' ', said.size()) - said.size());
  };
  return convert::convert_checkpoint(options);
}

double folder_error(const ModelCase& c, const std::string& dtype) {
  std::string preset;
  auto converted = convert_folder(folder_of(c), dtype, &preset);
  REQUIRE_MESSAGE(converted.ok(), c.name(), ": ", converted.status().message());
  CHECK(preset == c.spec.at("preset").get<std::string>());
  auto loaded = testing::load_model_bytes(converted->bytes);
  return testing::encoder_error(c, *loaded, dtype.c_str());
}

// A copy of the case's folder to break.
std::string copy_folder(const ModelCase& c, const testing::ScratchDir& scratch) {
  const std::string copy = scratch.file("folder");
  std::filesystem::copy(folder_of(c), copy, std::filesystem::copy_options::recursive);
  return copy;
}

nlohmann::json read_json(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

void write_json(const std::string& path, const nlohmann::json& json) { std::ofstream(path) << json.dump(2); }

std::string conversion_error(const std::string& folder) {
  std::string preset;
  auto converted = convert_folder(folder, "f32", &preset);
  REQUIRE_FALSE(converted.ok());
  return converted.status().message();
}

// The first tensor the index maps to `shard`.
std::string first_tensor_in(const nlohmann::json& index, const std::string& shard) {
  for (const auto& [tensor, file] : index.at("weight_map").items()) {
    if (file == shard) return tensor;
  }
  FAIL("no tensor in ", shard);
  return "";
}

const ModelCase& case_with_layout(const std::vector<ModelCase>& cases, const char* layout) {
  for (const ModelCase& c : cases) {
    if (c.spec.at("weights_layout") == layout) return c;
  }
  FAIL("no case with weights layout ", layout);
  return cases[0];
}

}  // namespace

TEST_CASE("--hf folders (DistilBERT, RoBERTa, XLM-R, sentence-transformers) match float64 PyTorch") {
  const std::vector<ModelCase> cases = testing::cases_of("hf-folder");
  CHECK(cases.size() >= 5);
  for (const ModelCase& c : cases) {
    CAPTURE(c.name());
    CHECK(folder_error(c, "f32") <= testing::kF32Tolerance);
  }
}

TEST_CASE("--hf folders with f16 and int8 weights stay within their bounds") {
  // The BERT bounds (test_models.cpp): f16 keeps 11 bits per weight, int8 about 7 with
  // per-channel scales; these models are as small and as deep.
  for (const ModelCase& c : testing::cases_of("hf-folder")) {
    CAPTURE(c.name());
    CHECK(folder_error(c, "f16") <= 2e-3);
    CHECK(folder_error(c, "int8") <= 3e-2);
  }
}

TEST_CASE("--hf: a sentence-transformers folder's tokenizer and generation ids are stored") {
  const ModelCase c = testing::model_case("hf-folder", "hf_st_bert_mean_norm_d30");
  std::string preset;
  auto converted = convert_folder(folder_of(c), "f32", &preset);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  auto loaded = testing::load_model_bytes(converted->bytes);
  CHECK(Tokenizer::from_model(*loaded->model).ok());  // WordPiece from vocab.txt
  REQUIRE(loaded->model->hyperparameter("generation.pad_token_id") != nullptr);
  CHECK(std::string(loaded->model->hyperparameter("generation.pad_token_id")) == "0");  // config.json's
}

TEST_CASE("--hf: a tokenizer.json focal cannot read, without older side files, converts with a warning") {
  const ModelCase c = testing::model_case("hf-folder", "hf_roberta_cls2_l3_d32_h4");
  std::string preset;
  auto converted = convert_folder(folder_of(c), "f32", &preset);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  bool warned = false;
  for (const std::string& w : converted->warnings) warned = warned || w.find("tokenizer.json") != std::string::npos;
  CHECK(warned);
}

TEST_CASE("--hf: broken shard indexes are refused, naming the shard and the tensor") {
  const std::vector<ModelCase> cases = testing::cases_of("hf-folder");
  const ModelCase& c = case_with_layout(cases, "sharded-safetensors");
  const std::string index_name = "model.safetensors.index.json";
  const std::string shard1 = "model-00001-of-00002.safetensors", shard2 = "model-00002-of-00002.safetensors";

  SUBCASE("a missing shard") {
    testing::ScratchDir scratch("hf-missing-shard");
    const std::string folder = copy_folder(c, scratch);
    std::filesystem::remove(folder + "/" + shard2);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("names shard '" + shard2 + "'") != std::string::npos, error);
    CHECK(error.find("which is missing") != std::string::npos);
  }
  SUBCASE("a tensor the named shard lacks") {
    testing::ScratchDir scratch("hf-wrong-shard");
    const std::string folder = copy_folder(c, scratch);
    nlohmann::json index = read_json(folder + "/" + index_name);
    const std::string moved = first_tensor_in(index, shard1);
    index["weight_map"][moved] = shard2;
    write_json(folder + "/" + index_name, index);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("puts tensor '" + moved + "' in '" + shard2 + "', which lacks it (it is in '" + shard1 +
                             "')") != std::string::npos,
                  error);
  }
  SUBCASE("a tensor absent from every shard") {
    testing::ScratchDir scratch("hf-absent-tensor");
    const std::string folder = copy_folder(c, scratch);
    nlohmann::json index = read_json(folder + "/" + index_name);
    index["weight_map"]["roberta.encoder.layer.9.output.dense.weight"] = shard2;
    write_json(folder + "/" + index_name, index);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("'roberta.encoder.layer.9.output.dense.weight' in '" + shard2 + "', which lacks it") !=
                      std::string::npos,
                  error);
  }
  SUBCASE("a tensor in two shards") {
    testing::ScratchDir scratch("hf-two-shards");
    const std::string folder = copy_folder(c, scratch);
    nlohmann::json index = read_json(folder + "/" + index_name);
    const std::string twice = first_tensor_in(index, shard1);
    const std::string extra = "model-extra.safetensors";
    testing::write_safetensors(folder + "/" + extra, {{"extra.weight", {1}, {0.0f}}, {twice, {1}, {0.0f}}});
    index["weight_map"]["extra.weight"] = extra;
    write_json(folder + "/" + index_name, index);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("tensor '" + twice + "' is in two shards") != std::string::npos, error);
  }
  SUBCASE("a shard name that leaves the folder") {
    testing::ScratchDir scratch("hf-shard-path");
    const std::string folder = copy_folder(c, scratch);
    nlohmann::json index = read_json(folder + "/" + index_name);
    index["weight_map"]["extra.weight"] = "../" + shard1;
    write_json(folder + "/" + index_name, index);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("not a file name beside the index") != std::string::npos, error);
  }
}

TEST_CASE("--hf: folders that cannot convert say why") {
  const std::vector<ModelCase> cases = testing::cases_of("hf-folder");
  SUBCASE("an unknown model_type is refused by name") {
    testing::ScratchDir scratch("hf-model-type");
    const std::string folder = copy_folder(case_with_layout(cases, "bin"), scratch);
    nlohmann::json config = read_json(folder + "/config.json");
    config["model_type"] = "mpnet";
    config["architectures"] = {"MPNetModel"};
    write_json(folder + "/config.json", config);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("model_type \"mpnet\", architectures [\"MPNetModel\"]: no preset") != std::string::npos,
                  error);
  }
  SUBCASE("no weights") {
    testing::ScratchDir scratch("hf-no-weights");
    const std::string folder = copy_folder(case_with_layout(cases, "bin"), scratch);
    std::filesystem::remove(folder + "/pytorch_model.bin");
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("has no weights: model.safetensors") != std::string::npos, error);
  }
  SUBCASE("a pooling mode focal does not implement is refused by name") {
    testing::ScratchDir scratch("hf-pooling");
    const std::string folder = copy_folder(testing::model_case("hf-folder", "hf_st_bert_mean_norm_d30"), scratch);
    nlohmann::json pooling = read_json(folder + "/1_Pooling/config.json");
    pooling["pooling_mode_mean_tokens"] = false;
    pooling["pooling_mode_weightedmean_tokens"] = true;
    write_json(folder + "/1_Pooling/config.json", pooling);
    const std::string error = conversion_error(folder);
    CHECK_MESSAGE(error.find("pooling_mode_weightedmean_tokens is not supported") != std::string::npos, error);
  }
  SUBCASE("--hf with --weights") {
    convert::ConvertOptions options;
    options.hf_dir = folder_of(cases[0]);
    options.weights = {"weights.safetensors"};
    auto converted = convert::convert_checkpoint(options);
    REQUIRE_FALSE(converted.ok());
    CHECK(std::string(converted.status().message()).find("without --weights") != std::string::npos);
  }
}
