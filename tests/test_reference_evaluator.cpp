// The converter's double-precision reference evaluator (converter/src/reference/)
// against independent references: the committed goldens' stored self-tests (PyTorch in
// float64, tests/goldens) and the tiny model's own double forward pass; then against
// the engine on generated inputs, as `focal convert` uses it. Each comparison is also
// shown to fail on a deliberately wrong model.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "focal_generated.h"
#include "reference/evaluator.h"
#include "reference/generated_inputs.h"
#include "reference/self_test_cases.h"
#include "support/aligned_buffer.h"
#include "support/tiny_model.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

// PyTorch float64 outputs stored as f32 differ from exact math by their f32 rounding
// (6e-8 relative) and the f32 rounding of the weights the model was trained in, which
// both sides share: so 1e-5 is a tight bound for the mixed error below.
constexpr double kGoldenTolerance = 1e-5;

struct LoadedModel {
  std::unique_ptr<AlignedBuffer> bytes;
  std::unique_ptr<Model> model;
};

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open ", path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

LoadedModel load(const std::vector<uint8_t>& bytes, bool verify_checksum = true) {
  LoadedModel loaded;
  loaded.bytes = std::make_unique<AlignedBuffer>(bytes);
  LoadOptions options;
  options.verify_checksum = verify_checksum;
  auto model = Model::from_bytes(loaded.bytes->data(), bytes.size(), options);
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  loaded.model = std::make_unique<Model>(model.value());
  return loaded;
}

// The goldens on f32 activations. Those on static int8 activations (static_int8_*,
// tests/test_static_int8_golden.cpp) store their own integers as the self-test, which
// the double-precision evaluator does not reproduce: it has no integer kernels.
std::vector<std::string> golden_models() {
  std::vector<std::string> paths;
  for (const auto& entry : std::filesystem::directory_iterator(FOCAL_GOLDEN_DIR)) {
    const std::string path = entry.path().string() + "/model.focal";
    const bool static_int8 = entry.path().filename().string().rfind("static_int8_", 0) == 0;
    if (std::filesystem::exists(path) && !static_int8) paths.push_back(path);
  }
  std::sort(paths.begin(), paths.end());
  REQUIRE_MESSAGE(paths.size() >= 7, "expected the 7 goldens in " FOCAL_GOLDEN_DIR);
  return paths;
}

// Largest |got - want| / (1 + |want|) over the expected outputs (matched by tensor);
// +inf when an output is missing or its shape differs.
double worst_error(const std::vector<reference::Value>& got, const std::vector<reference::Value>& want) {
  double worst = 0.0;
  for (const reference::Value& w : want) {
    const auto g = std::find_if(got.begin(), got.end(), [&](const reference::Value& v) { return v.tensor == w.tensor; });
    if (g == got.end() || g->values.size() != w.values.size()) return INFINITY;
    for (size_t i = 0; i < w.values.size(); ++i) {
      const double error = std::fabs(g->values[i] - w.values[i]) / (1.0 + std::fabs(w.values[i]));
      worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
  }
  return worst;
}

// The evaluator's worst error over every stored self-test case of `model`.
double stored_self_test_error(const Model& model) {
  auto evaluator = reference::Evaluator::create(model);
  REQUIRE_MESSAGE(evaluator.ok(), evaluator.status().message());
  const auto cases = reference::stored_self_tests(model);
  REQUIRE(!cases.empty());
  double worst = 0.0;
  for (const auto& c : cases) {
    auto outputs = reference::evaluate_outputs(evaluator.value(), c.inputs);
    REQUIRE_MESSAGE(outputs.ok(), outputs.status().message());
    worst = std::max(worst, worst_error(outputs.value(), c.expected));
  }
  return worst;
}

// The bytes with every stored value of the first f32 packed Dense weight negated (its
// sign bits flipped): a model the evaluator must visibly disagree on.
std::vector<uint8_t> with_first_weight_negated(const std::vector<uint8_t>& bytes, const Model& model) {
  std::vector<uint8_t> changed = bytes;
  const size_t data_offset = static_cast<size_t>(model.data_segment() - model.bytes());
  for (const fb::Tensor* t : *model.schema().tensors()) {
    if (t->layout() != fb::TensorLayout_DensePacked || t->dtype() != fb::DType_F32) continue;
    const size_t begin = data_offset + t->data()->offset();
    for (size_t i = 0; i < t->data()->size(); i += 4) changed[begin + i + 3] ^= 0x80;
    return changed;
  }
  FAIL("no f32 packed weight to negate");
  return changed;
}

// Sets the inputs of `session` and runs it once; its f32 outputs.
std::vector<reference::Value> run_engine(Session& session, const std::vector<reference::Value>& inputs) {
  const Model& model = session.model();
  for (int i = 0; i < model.input_count(); ++i) {
    const reference::Value& v = inputs[static_cast<size_t>(i)];
    std::vector<uint8_t> raw(v.values.size() * 4);
    for (size_t k = 0; k < v.values.size(); ++k) {
      const float f = static_cast<float>(v.values[k]);
      const int32_t n = static_cast<int32_t>(v.values[k]);
      std::memcpy(raw.data() + 4 * k, model.tensor(v.tensor).dtype == DType::kI32 ? static_cast<const void*>(&n) : &f, 4);
    }
    REQUIRE(session.set_input(i, v.shape, raw.data(), raw.size()).ok());
  }
  const Status run = session.run();
  REQUIRE_MESSAGE(run.ok(), run.message());
  std::vector<reference::Value> outputs;
  for (int i = 0; i < model.output_count(); ++i) {
    const TensorView view = session.output(i);
    if (view.dtype != DType::kF32) continue;
    reference::Value v;
    v.tensor = model.output_tensor(i);
    v.shape = view.shape;
    v.values.assign(view.as<float>(), view.as<float>() + view.shape.element_count());
    outputs.push_back(std::move(v));
  }
  return outputs;
}

// A session over an arena of its own.
struct OwnedSession {
  std::unique_ptr<AlignedBuffer> arena;
  std::unique_ptr<Session> session;
};

OwnedSession open_session(const Model& model) {
  OwnedSession owned;
  const size_t arena_bytes = Session::required_arena_bytes(model, SessionOptions()).value();
  owned.arena = std::make_unique<AlignedBuffer>(arena_bytes);
  auto session = Session::create(model, SessionOptions(), owned.arena->data(), arena_bytes);
  REQUIRE_MESSAGE(session.ok(), session.status().message());
  owned.session = std::make_unique<Session>(session.value());
  return owned;
}

// The engine's outputs for `inputs` (run as run_self_tests does: fresh state, one run).
std::vector<reference::Value> engine_outputs(const Model& model, const std::vector<reference::Value>& inputs) {
  OwnedSession owned = open_session(model);
  return run_engine(*owned.session, inputs);
}

}  // namespace

TEST_CASE("reference evaluator: every golden's stored self-test (PyTorch float64) within 1e-5") {
  double worst_over_all = 0.0;
  for (const std::string& path : golden_models()) {
    CAPTURE(path);
    const LoadedModel golden = load(read_file(path));
    const double error = stored_self_test_error(*golden.model);
    MESSAGE(std::filesystem::path(path).parent_path().filename().string(), ": max error ", error);
    CHECK(error <= kGoldenTolerance);
    worst_over_all = std::max(worst_over_all, error);
  }
  MESSAGE("worst over the goldens: ", worst_over_all);
}

TEST_CASE("reference evaluator: the golden comparison fails on a model with a negated weight") {
  for (const std::string& path : golden_models()) {
    CAPTURE(path);
    const std::vector<uint8_t> bytes = read_file(path);
    const LoadedModel golden = load(bytes);
    const LoadedModel broken = load(with_first_weight_negated(bytes, *golden.model), /*verify_checksum=*/false);
    CHECK(stored_self_test_error(*broken.model) > 100 * kGoldenTolerance);
  }
}

TEST_CASE("reference evaluator: the tiny model (Attention op, f32) matches its own double forward pass") {
  const std::vector<uint8_t> bytes = focal::testing::build_tiny_model();
  const LoadedModel tiny = load(bytes);
  CHECK(stored_self_test_error(*tiny.model) <= 1e-6);  // expected values are f32-rounded doubles
  const LoadedModel broken = load(with_first_weight_negated(bytes, *tiny.model), false);
  CHECK(stored_self_test_error(*broken.model) > 1e-3);
}

TEST_CASE("reference evaluator: the engine agrees on generated inputs for every golden (batch 1 and 2)") {
  for (const std::string& path : golden_models()) {
    CAPTURE(path);
    const LoadedModel golden = load(read_file(path));
    for (int64_t batch : {1, 2}) {
      CAPTURE(batch);
      reference::GeneratedInputOptions options;
      options.batch = batch;
      const auto inputs = reference::generate_inputs(*golden.model, options);
      auto evaluator = reference::Evaluator::create(*golden.model);
      REQUIRE(evaluator.ok());
      auto expected = reference::evaluate_outputs(evaluator.value(), inputs);
      REQUIRE_MESSAGE(expected.ok(), expected.status().message());
      REQUIRE(!expected->empty());
      const double error = worst_error(engine_outputs(*golden.model, inputs), expected.value());
      CHECK(error <= 1e-5);
      const auto flipped = [&] {  // the same comparison against negated references fails
        std::vector<reference::Value> values = expected.value();
        for (auto& v : values) for (double& x : v.values) x = -x;
        return values;
      }();
      CHECK(worst_error(engine_outputs(*golden.model, inputs), flipped) > 1e-2);
    }
  }
}

TEST_CASE("reference evaluator: generated inputs are ids within the tables and masks of 1s then 0s") {
  const LoadedModel bert = load(read_file(std::string(FOCAL_GOLDEN_DIR) + "/bert_l2_d32_h4/model.focal"));
  const auto inputs = reference::generate_inputs(*bert.model);
  REQUIRE(inputs.size() == 3);
  for (const auto& v : inputs) {
    const TensorInfo info = bert.model->tensor(v.tensor);
    CAPTURE(info.name);
    CHECK(v.shape.dims[0] == 1);
    CHECK(v.shape.dims[1] == 8);
    if (std::string(info.name) == "attention_mask") {
      CHECK(v.values == std::vector<double>{1, 1, 1, 1, 1, 1, 0, 0});
    } else {
      for (double x : v.values) CHECK((x >= 0 && x == std::floor(x)));
    }
  }
  CHECK(reference::generate_inputs(*bert.model)[0].values == inputs[0].values);  // deterministic
}

TEST_CASE("reference evaluator: KV caches across runs (prefill, then single-token steps) agree with the engine") {
  for (const char* name : {"gpt2_l2_d32_h4", "llama_mqa_hd16_l3_d32_h4_kv1"}) {
    CAPTURE(name);
    const LoadedModel golden = load(read_file(std::string(FOCAL_GOLDEN_DIR) + "/" + name + "/model.focal"));
    auto evaluator = reference::Evaluator::create(*golden.model);
    REQUIRE(evaluator.ok());
    OwnedSession engine = open_session(*golden.model);
    reference::GeneratedInputOptions options;
    options.seq = 5;
    for (int step = 0; step < 4; ++step) {
      CAPTURE(step);
      const auto inputs = reference::generate_inputs(*golden.model, options);
      REQUIRE(evaluator->set_input(0, inputs[0].shape, inputs[0].values).ok());
      REQUIRE(evaluator->run().ok());
      std::vector<reference::Value> expected;
      for (int i = 0; i < golden.model->output_count(); ++i) expected.push_back(evaluator->value(golden.model->output_tensor(i)));
      CHECK(worst_error(run_engine(*engine.session, inputs), expected) <= 1e-5);
      CHECK(evaluator->cached_length() == engine.session->cached_length());
      options.seq = 1;  // then one token per run, at the cached positions
      options.seed += 1;
    }
  }
}
