// The tiny model end to end: written, loaded, run, and compared with the independent
// double-precision forward pass; its embedded self-test passes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <vector>

#include "focal/focal.h"
#include "support/aligned_buffer.h"
#include "support/emulation.h"
#include "support/tiny_model.h"
#include "thread_pool.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

}  // namespace

TEST_CASE("tiny model loads and describes itself") {
  AlignedBuffer file(testing::build_tiny_model());
  REQUIRE(file.size() > 0);
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  CHECK(model->version() == kFormatVersion);
  CHECK(model->op_count() == 10);
  CHECK(model->input_count() == 1);
  CHECK(model->output_count() == 2);
  CHECK(std::string(model->architecture()) == "tiny-attention-test");
  CHECK(model->find_tensor("probs") == model->output_tensor(1));
  CHECK(std::string(model->op(3).kind) == "Attention");
  CHECK(model->parameter_count() ==
        8 * 8 + 8 + 2 * (4 * 8 + 4) + 8 * 8 + 8 + 8 + 8 + 16 * 8 + 16 + 5 * 16 + 5);
  // The arena never exceeds what keeping every activation apart would need.
  uint64_t all_apart = 0;
  for (int t = 0; t < model->tensor_count(); ++t) {
    if (model->tensor(t).role != TensorRole::kConstant)
      all_apart += (model->tensor(t).max_bytes + 63) / 64 * 64;
  }
  CHECK(model->arena_bytes() < all_apart);
}

TEST_CASE("tiny model matches the double-precision forward pass at ragged shapes") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  auto arena_bytes = Session::required_arena_bytes(*model, SessionOptions());
  REQUIRE(arena_bytes.ok());
  AlignedBuffer arena(arena_bytes.value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE_MESSAGE(session.ok(), session.status().message());

  for (int64_t batch : {1, 2}) {
    for (int64_t seq : {1, 3, 8}) {
      CAPTURE(batch);
      CAPTURE(seq);
      const auto x =
          testing::random_values(size_t(batch * seq * 8), uint32_t(batch * 10 + seq), -3, 3);
      Shape shape;
      shape.rank = 3;
      shape.dims[0] = batch;
      shape.dims[1] = seq;
      shape.dims[2] = 8;
      REQUIRE(session->set_input(0, shape, x.data(), x.size() * sizeof(float)).ok());
      REQUIRE(session->run().ok());
      const auto want = testing::tiny_forward_double(testing::TinyConfig(), x, batch, seq);
      const TensorView logits = session->output(0);
      const TensorView probs = session->output(1);
      REQUIRE(logits.shape.dims[0] == batch);
      REQUIRE(logits.shape.dims[1] == seq);
      double worst = 0;
      for (size_t i = 0; i < want.logits.size(); ++i) {
        worst = std::max(worst, std::fabs(logits.as<float>()[i] - want.logits[i]) /
                                    (1e-5 + 1e-4 * std::fabs(want.logits[i])));
        worst = std::max(worst, std::fabs(probs.as<float>()[i] - want.probs[i]) /
                                    (1e-5 + 1e-4 * std::fabs(want.probs[i])));
      }
      CHECK(worst <= 1.0);  // |err| <= 1e-5 + 1e-4 |want| everywhere
    }
  }
}

TEST_CASE("tiny model passes its own self-test, and a wrong expectation fails it") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  auto report = run_self_tests(session.value());
  REQUIRE_MESSAGE(report.ok(), report.status().message());
  CHECK(report->cases == 1);
  CHECK(report->failed_cases == 0);
  CHECK(report->worst_tolerance_ratio < 1.0f);
  CHECK(report->worst_tolerance_ratio > 0.0f);  // it really compared something

  // Same model, but the expected outputs come from a different weight seed.
  focal::ModelWriter writer;
  testing::TinyConfig other;
  other.seed = 2;
  const auto tensors = testing::add_tiny_model(writer, testing::TinyConfig());
  const auto x = testing::random_values(2 * 3 * 8, 5);
  const auto wrong = testing::tiny_forward_double(other, x, 2, 3);
  focal::SelfTestSpec spec;
  std::vector<uint8_t> x_bytes(x.size() * 4), want_bytes(wrong.probs.size() * 4);
  std::memcpy(x_bytes.data(), x.data(), x_bytes.size());
  std::vector<float> wrong_f(wrong.probs.begin(), wrong.probs.end());
  std::memcpy(want_bytes.data(), wrong_f.data(), want_bytes.size());
  spec.inputs.push_back({tensors.x, {2, 3, 8}, x_bytes});
  spec.expected_outputs.push_back({tensors.probs, {2, 3, 5}, want_bytes});
  spec.atol = 1e-5f;
  spec.rtol = 1e-4f;
  writer.add_self_test(spec);
  AlignedBuffer bad_file(writer.finish().value());
  auto bad_model = Model::from_bytes(bad_file.data(), bad_file.size());
  REQUIRE(bad_model.ok());
  auto bad_session = Session::create(*bad_model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(bad_session.ok());
  auto bad_report = run_self_tests(bad_session.value());
  REQUIRE(bad_report.ok());
  CHECK(bad_report->failed_cases == 1);
}

TEST_CASE("tiny model on a thread pool gives bitwise the same outputs" *
          doctest::skip(testing::kUnderEmulation)) {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  const auto x = testing::random_values(2 * 8 * 8, 9, -3, 3);
  Shape shape;
  shape.rank = 3;
  shape.dims[0] = 2;
  shape.dims[1] = 8;
  shape.dims[2] = 8;
  std::vector<float> outputs[2];
  for (int workers : {1, 2}) {
    ThreadPool pool(workers);
    SessionOptions options;
    options.parallel = &pool;
    AlignedBuffer arena(Session::required_arena_bytes(*model, options).value());
    auto session = Session::create(*model, options, arena.data(), arena.size());
    REQUIRE(session.ok());
    REQUIRE(session->set_input(0, shape, x.data(), x.size() * sizeof(float)).ok());
    REQUIRE(session->run().ok());
    const TensorView probs = session->output(1);
    outputs[workers - 1].assign(probs.as<float>(), probs.as<float>() + probs.shape.element_count());
  }
  CHECK(outputs[0] == outputs[1]);
}

// Two sessions on two threads sharing one pool: run() calls take turns (ThreadSanitizer
// checks this in the host-tsan preset; it raced and deadlocked before).
TEST_CASE("tiny model: one thread pool shared by two sessions on two threads" *
          doctest::skip(testing::kUnderEmulation)) {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  ThreadPool pool(2);
  REQUIRE(pool.status().ok());
  SessionOptions options;
  options.parallel = &pool;
  const size_t arena_bytes = Session::required_arena_bytes(*model, options).value();
  const Shape shape = testing::tiny_input_shape(2, 8);
  const auto x = testing::random_values(2 * 8 * 8, 9, -3, 3);
  std::vector<float> outputs[2];
  bool ok[2] = {false, false};
  const auto worker = [&](int w) {
    AlignedBuffer arena(arena_bytes);
    auto session = Session::create(*model, options, arena.data(), arena.size());
    if (!session.ok()) return;
    for (int run = 0; run < 50; ++run) {
      if (!session->set_input(0, shape, x.data(), x.size() * sizeof(float)).ok() || !session->run().ok()) return;
    }
    const TensorView probs = session->output(1);
    outputs[w].assign(probs.as<float>(), probs.as<float>() + probs.shape.element_count());
    ok[w] = true;
  };
  std::thread a(worker, 0), b(worker, 1);
  a.join();
  b.join();
  CHECK(ok[0]);
  CHECK(ok[1]);
  CHECK(outputs[0] == outputs[1]);
}

TEST_CASE("model accessors answer -1 or empty out of range") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  CHECK(model->input_tensor(1) == -1);
  CHECK(model->output_tensor(-1) == -1);
  CHECK(model->op_input(0, 3) == -1);
  CHECK(model->op_input(99, 0) == -1);
  CHECK(std::string(model->tensor(500).name).empty());
  CHECK(std::string(model->op(-3).kind).empty());
  CHECK(std::string(model->symbol(8).name).empty());
}

TEST_CASE("tiny model with f16, bf16 and int8 dense weights stays within its stated bounds") {
  const size_t f32_bytes = testing::build_tiny_model().size();
  for (DType type : {DType::kF16, DType::kBF16, DType::kI8}) {
    CAPTURE(std::string(dtype_name(type)));
    testing::TinyConfig config;
    config.weight_type = type;
    AlignedBuffer file(testing::build_tiny_model(config));
    REQUIRE(file.size() > 0);
    CHECK(file.size() < f32_bytes);  // the weights shrank
    auto model = Model::from_bytes(file.data(), file.size());
    REQUIRE_MESSAGE(model.ok(), model.status().message());
    AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
    auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
    REQUIRE(session.ok());
    auto report = run_self_tests(session.value());
    REQUIRE(report.ok());
    CHECK(report->failed_cases == 0);
    MESSAGE(std::string(dtype_name(type)) << ": max abs error " << report->max_abs_error
                             << ", worst error/tolerance " << report->worst_tolerance_ratio);
  }
}

TEST_CASE("tiny model with int8 activations: smaller than f32, close to it at every position, self-test passes") {
  testing::TinyConfig config;
  config.weight_type = DType::kI8;
  config.int8_activations = true;
  AlignedBuffer f32_file(testing::build_tiny_model());
  AlignedBuffer int8_file(testing::build_tiny_model(config));
  REQUIRE(int8_file.size() > 0);
  CHECK(int8_file.size() < f32_file.size());
  auto f32_model = Model::from_bytes(f32_file.data(), f32_file.size());
  auto int8_model = Model::from_bytes(int8_file.data(), int8_file.size());
  REQUIRE_MESSAGE(int8_model.ok(), int8_model.status().message());
  REQUIRE(f32_model.ok());
  AlignedBuffer f32_arena(Session::required_arena_bytes(*f32_model, SessionOptions()).value());
  AlignedBuffer int8_arena(Session::required_arena_bytes(*int8_model, SessionOptions()).value());
  auto f32 = Session::create(*f32_model, SessionOptions(), f32_arena.data(), f32_arena.size());
  auto int8 = Session::create(*int8_model, SessionOptions(), int8_arena.data(), int8_arena.size());
  REQUIRE(f32.ok());
  REQUIRE(int8.ok());
  auto report = run_self_tests(int8.value());
  REQUIRE(report.ok());
  CHECK(report->failed_cases == 0);
  const Shape shape = testing::tiny_input_shape(2, 7);
  const auto x = testing::random_values(2 * 7 * 8, 77, -3, 3);
  for (Session* s : {&f32.value(), &int8.value()}) {
    REQUIRE(s->set_input(0, shape, x.data(), x.size() * sizeof(float)).ok());
    REQUIRE(s->run().ok());
  }
  // Per position, the logits' cosine to f32: int8 rounding of activations and weights
  // (each about 0.3% relative noise per dense layer, four layers) keeps it near
  // 1 - 1e-4; 0.999 leaves room for ten times that, a wrong row or scale falls far below.
  const float* want = f32->output(0).as<float>();
  const float* got = int8->output(0).as<float>();
  double worst = 1.0, largest_difference = 0.0;
  for (int64_t row = 0; row < 2 * 7; ++row) {
    double ab = 0, aa = 0, bb = 0;
    for (int c = 0; c < testing::kTinyClasses; ++c) {
      const double a = got[row * testing::kTinyClasses + c], b = want[row * testing::kTinyClasses + c];
      ab += a * b;
      aa += a * a;
      bb += b * b;
      largest_difference = std::max(largest_difference, std::fabs(a - b));
    }
    worst = std::min(worst, ab / std::sqrt(aa * bb));
  }
  MESSAGE("int8 activations: worst per-position cosine to f32 ", worst, ", largest logit difference ",
          largest_difference);
  CHECK(worst >= 0.999);
  CHECK(largest_difference > 1e-4);  // it really ran on int8 activations
}
