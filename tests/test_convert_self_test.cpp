// `focal convert`'s self-test (convert.h): stored in every converted file by default,
// on generated inputs with expected outputs computed in double precision from the
// weights as stored; computed the same way for a --self-test DIR without expected
// files; taken from DIR/expected when given; absent with --no-self-test. The stored
// test passes on the written model and fails on one whose weights were changed.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "convert.h"
#include "focal/self_test.h"
#include "focal_generated.h"
#include "reference/evaluator.h"
#include "reference/self_test_cases.h"
#include "support/model_checks.h"

using namespace focal;
using testing::ModelCase;
using testing::model_case;

namespace {

convert::ConvertOptions options_for(const ModelCase& c, const std::string& dtype) {
  convert::ConvertOptions options;
  options.preset = c.spec.at("preset").get<std::string>();
  options.weights = {c.dir + "/" + c.spec.at("weights").get<std::string>()};
  options.config = c.dir + "/config.json";
  options.max_batch = 4;
  options.max_seq = 16;
  REQUIRE(convert::parse_weight_dtype(dtype, &options.dtype));
  return options;
}

convert::Converted convert_ok(const convert::ConvertOptions& options) {
  auto converted = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return std::move(converted).value();
}

// The stored self-test run by the engine on these bytes (checksum not checked, so
// tests can change weights).
SelfTestReport run_stored(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  LoadOptions load;
  load.verify_checksum = false;
  auto model = Model::from_bytes(file.data(), bytes.size(), load);
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  const size_t arena_bytes = Session::required_arena_bytes(*model, SessionOptions()).value();
  testing::AlignedBuffer arena(arena_bytes);
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena_bytes);
  REQUIRE(session.ok());
  auto report = run_self_tests(session.value());
  REQUIRE_MESSAGE(report.ok(), report.status().message());
  return report.value();
}

// Every stored value of every f32 packed Dense weight negated (sign bits flipped).
std::vector<uint8_t> weights_negated(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), bytes.size());
  REQUIRE(model.ok());
  std::vector<uint8_t> changed = bytes;
  const size_t data = static_cast<size_t>(model->data_segment() - model->bytes());
  for (const fb::Tensor* t : *model->schema().tensors()) {
    if (t->layout() != fb::TensorLayout_DensePacked || t->dtype() != fb::DType_F32) continue;
    for (size_t i = 0; i < t->data()->size(); i += 4) changed[data + t->data()->offset() + i + 3] ^= 0x80;
  }
  return changed;
}

}  // namespace

TEST_CASE("convert: a default self-test for every dtype, computed in double, passing on the written file") {
  const ModelCase cases[] = {model_case("bert", "bert_l2_d32_h4"),
                             model_case("rnn-seq2seq", "rnn_luong_dot_gru_uni_l2_e16_h24_hd24"),
                             model_case("llama", "llama_gqa_l2_d64_h8_kv2")};
  for (const ModelCase& c : cases) {
    for (const char* dtype : {"f32", "f16", "bf16", "int8"}) {
      CAPTURE(c.name());
      CAPTURE(dtype);
      std::vector<std::string> progress;
      convert::ConvertOptions options = options_for(c, dtype);
      options.progress = [&](const std::string& line) { progress.push_back(line); };
      const convert::Converted converted = convert_ok(options);
      CHECK(converted.self_tests == 1);
      CHECK(converted.self_test_computed);
      CHECK(converted.self_test_worst_ratio <= 0.5f);
      bool reported = false;
      for (const std::string& line : progress) reported |= line.find("double precision") != std::string::npos;
      CHECK(reported);

      testing::AlignedBuffer file(converted.bytes);
      auto model = Model::from_bytes(file.data(), converted.bytes.size());
      REQUIRE(model.ok());
      const auto stored = reference::stored_self_tests(*model);
      REQUIRE(stored.size() == 1);
      CHECK(stored[0].atol == doctest::Approx(convert::computed_self_test_tolerance(options.dtype)));
      CHECK(stored[0].inputs[0].shape.dims[0] == 1);  // batch 1
      CHECK(stored[0].expected.size() >= 1);
      // The stored expectations are the evaluator's on the final file's weights.
      auto evaluator = reference::Evaluator::create(*model);
      REQUIRE(evaluator.ok());
      auto again = reference::evaluate_outputs(evaluator.value(), stored[0].inputs);
      REQUIRE(again.ok());
      for (size_t i = 0; i < stored[0].expected.size(); ++i) {
        for (size_t k = 0; k < stored[0].expected[i].values.size(); ++k) {
          const double want = again.value()[i].values[k];
          CHECK(std::abs(stored[0].expected[i].values[k] - want) <= 1e-6 * (1.0 + std::abs(want)));
        }
      }
      if (std::string(dtype) == "f32") {
        CHECK(run_stored(converted.bytes).failed_cases == 0);
        CHECK(run_stored(weights_negated(converted.bytes)).failed_cases == 1);  // the test can fail
      }
    }
  }
}

TEST_CASE("convert: --self-test DIR with and without expected files, --no-self-test") {
  const ModelCase c = model_case("bert", "bert_l2_d32_h4");
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "focal_convert_self_test";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir / "inputs");
  for (const auto& entry : std::filesystem::directory_iterator(c.dir + "/inputs")) {
    std::filesystem::copy_file(entry.path(), dir / "inputs" / entry.path().filename());
  }
  convert::ConvertOptions options = options_for(c, "f32");
  options.self_test_dir = dir.string();

  SUBCASE("inputs only: the expected outputs are computed in double") {
    const convert::Converted converted = convert_ok(options);
    CHECK(converted.self_tests == 1);
    CHECK(converted.self_test_computed);
  }
  SUBCASE("given expected outputs are used as they are, with the 1e-4 default") {
    std::filesystem::create_directories(dir / "expected");
    std::filesystem::copy_file(c.dir + "/expected/pooler_output.npy", dir / "expected/pooler_output.npy");
    const convert::Converted converted = convert_ok(options);
    CHECK(converted.self_tests == 1);
    CHECK_FALSE(converted.self_test_computed);
    testing::AlignedBuffer file(converted.bytes);
    auto model = Model::from_bytes(file.data(), converted.bytes.size());
    REQUIRE(model.ok());
    const auto stored = reference::stored_self_tests(*model);
    REQUIRE(stored[0].expected.size() == 1);
    CHECK(stored[0].atol == doctest::Approx(1e-4));
  }
  SUBCASE("a NaN in a given expected output is refused, naming the file and element") {
    // It failed the self-test while the report said "worst error 0 of its tolerance".
    std::filesystem::create_directories(dir / "expected");
    const std::filesystem::path npy = dir / "expected/pooler_output.npy";
    std::filesystem::copy_file(c.dir + "/expected/pooler_output.npy", npy);
    std::fstream file(npy, std::ios::in | std::ios::out | std::ios::binary);
    unsigned char prefix[10] = {};
    file.read(reinterpret_cast<char*>(prefix), 10);  // .npy v1: magic, version, header length
    const float nan = std::nanf("");
    file.seekp(10 + (prefix[8] | prefix[9] << 8) + 3 * 4);  // element 3
    file.write(reinterpret_cast<const char*>(&nan), 4);
    file.close();
    const auto converted = convert::convert_checkpoint(options);
    REQUIRE(!converted.ok());
    const std::string message = converted.status().message();
    CAPTURE(message);
    CHECK(message.find("pooler_output.npy': element 3 is nan; self-test values must be finite") != std::string::npos);
  }
  SUBCASE("--no-self-test stores none, and conflicts with a dir") {
    options.self_test = false;
    CHECK_FALSE(convert::convert_checkpoint(options).ok());
    options.self_test_dir.clear();
    const convert::Converted converted = convert_ok(options);
    CHECK(converted.self_tests == 0);
    testing::AlignedBuffer file(converted.bytes);
    auto model = Model::from_bytes(file.data(), converted.bytes.size());
    REQUIRE(model.ok());
    CHECK(model->self_test_count() == 0);
  }
  std::filesystem::remove_all(dir);
}
