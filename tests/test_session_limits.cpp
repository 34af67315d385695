// Session creation and input checks: arenas too small or misaligned, limits beyond the
// plan, inputs of the wrong size, shape or length.
#include <doctest/doctest.h>

#include <cstring>
#include <vector>

#include "focal/focal.h"
#include "support/aligned_buffer.h"
#include "support/op_options.h"
#include "model_writer.h"
#include "support/tiny_model.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

bool contains(const Status& status, const char* text) {
  return std::strstr(status.message(), text) != nullptr;
}

Shape shape3(int64_t a, int64_t b, int64_t c) {
  Shape s;
  s.rank = 3;
  s.dims[0] = a;
  s.dims[1] = b;
  s.dims[2] = c;
  return s;
}

}  // namespace

TEST_CASE("session arena checks") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  const size_t needed = Session::required_arena_bytes(*model, SessionOptions()).value();
  // The planned activations, then the attention kernel's workspace.
  CHECK(needed > (model->arena_bytes() + 63) / 64 * 64);
  AlignedBuffer arena(needed + 64);

  auto small = Session::create(*model, SessionOptions(), arena.data(), needed - 1);
  CHECK(small.status().code() == StatusCode::kResourceExhausted);
  CHECK(contains(small.status(), "needs"));

  auto misaligned = Session::create(*model, SessionOptions(), arena.data() + 8, needed);
  CHECK(contains(misaligned.status(), "aligned"));

  CHECK(!Session::create(*model, SessionOptions(), nullptr, needed).ok());
  CHECK(Session::create(*model, SessionOptions(), arena.data(), needed).ok());
}

TEST_CASE("session limits beyond the plan are refused") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  SessionOptions options;
  options.max_seq = 9;
  auto too_long = Session::required_arena_bytes(*model, options);
  CHECK(too_long.status().code() == StatusCode::kOutOfRange);
  CHECK(contains(too_long.status(), "seq = 9 exceeds the model's planned maximum 8"));
  options.max_seq = 0;
}

TEST_CASE("input checks: length beyond the limit, wrong dims, wrong byte counts, unset inputs") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  SessionOptions options;
  options.max_seq = 4;  // below the planned 8
  auto session = Session::create(*model, options, arena.data(), arena.size());
  REQUIRE(session.ok());
  std::vector<float> x(2 * 8 * 8, 0.1f);

  Status s = session->set_input(0, shape3(1, 5, 8), x.data(), 5 * 8 * 4);
  CHECK(s.code() == StatusCode::kOutOfRange);
  CHECK(contains(s, "dim 1 (seq) = 5, the session allows 1 to 4"));

  s = session->set_input(0, shape3(1, 4, 7), x.data(), 4 * 7 * 4);
  CHECK(contains(s, "dim 2 must be 8, given 7"));

  s = session->set_input(0, shape3(1, 4, 8), x.data(), 4);
  CHECK(contains(s, "needs 128 bytes, given 4"));

  s = session->set_input(3, shape3(1, 4, 8), x.data(), 128);
  CHECK(contains(s, "input 3 does not exist"));

  CHECK(contains(session->run(), "input 'x' not set since the last run"));
  REQUIRE(session->set_input(0, shape3(1, 4, 8), x.data(), 128).ok());
  CHECK(session->run().ok());
  CHECK(session->output(0).shape.dims[1] == 4);
  CHECK(!session->run().ok());  // inputs must be set again for the next run
  CHECK(session->find_input("x") == 0);
  CHECK(session->find_output("probs") == 1);
  CHECK(session->find_output("nope") == -1);
}

TEST_CASE("views out of range are empty, not out of bounds") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
  REQUIRE(session.ok());
  CHECK(session->output(2).data == nullptr);
  CHECK(session->output(-1).data == nullptr);
  CHECK(session->tensor_view(1000).data == nullptr);
  CHECK(session->output(0).data != nullptr);
}

namespace {

// x [batch, seq] f32 -> y = 2x; m [batch, seq] i32, optional (unset: all `fill`) -> n =
// 2m + 3 (i32); p [batch, other] i32, optional, over a symbol only p itself sets -> q = p.
std::vector<uint8_t> optional_inputs_model(int fill, bool optional_output = false, DType m_type = DType::kI32) {
  ModelWriter w;
  const int batch = w.add_symbol("batch", 2), seq = w.add_symbol("seq", 4), other = w.add_symbol("other", 3);
  const int x = w.add_input("x", DType::kF32, {2, 4}, {batch, seq});
  const int m = w.add_input("m", m_type, {2, 4}, {batch, seq});
  const int p = w.add_input("p", DType::kI32, {2, 3}, {batch, other});
  w.set_absent_fill(m, fill);
  w.set_absent_fill(p, fill);
  const int y = w.add_output("y", DType::kF32, {2, 4}, {batch, seq});
  const int n = w.add_output("n", DType::kI32, {2, 4}, {batch, seq});
  const int q = w.add_output("q", DType::kI32, {2, 3}, {batch, other});
  if (optional_output) w.set_absent_fill(y, 1);
  w.add_op("y", testing::scale_options(2.0f, 0.0f), {x}, {y});
  w.add_op("n", testing::scale_options(2.0f, 3.0f), {m}, {n});
  w.add_op("q", testing::scale_options(1.0f, 0.0f), {p}, {q});
  auto file = w.finish();
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  return file.value();
}

Shape shape2(int64_t a, int64_t b) {
  Shape s;
  s.rank = 2;
  s.dims[0] = a;
  s.dims[1] = b;
  return s;
}

}  // namespace

TEST_CASE("an optional input left unset is filled at the dims the other inputs set; one they cannot size is refused") {
  for (const int fill : {1, 0}) {
    CAPTURE(fill);
    AlignedBuffer file(optional_inputs_model(fill));
    auto model = Model::from_bytes(file.data(), file.size());
    REQUIRE_MESSAGE(model.ok(), model.status().message());
    CHECK(model->tensor(model->input_tensor(0)).absent_fill == -1);
    CHECK(model->tensor(model->input_tensor(1)).absent_fill == fill);
    AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
    auto session = Session::create(*model, SessionOptions(), arena.data(), arena.size());
    REQUIRE(session.ok());
    const float x[3] = {1, 2, 3};
    const int32_t p[2] = {7, 8};

    // p's dim `other` is set by no input given: refused, naming it.
    REQUIRE(session->set_input(0, shape2(1, 3), x, sizeof(x)).ok());
    CHECK(contains(session->run(), "optional input 'p' not set and no input given sets its other"));

    // m left unset: every element `fill`, at [1, 3] from x.
    REQUIRE(session->set_input(0, shape2(1, 3), x, sizeof(x)).ok());
    REQUIRE(session->set_input(2, shape2(1, 2), p, sizeof(p)).ok());
    REQUIRE(session->run().ok());
    const TensorView n = session->output(1);
    CHECK(n.shape.dims[1] == 3);
    for (int i = 0; i < 3; ++i) CHECK(n.as<int32_t>()[i] == 2 * fill + 3);
    CHECK(session->output(2).as<int32_t>()[1] == 8);

    // Given, it is used as given; the next run without it fills again.
    const int32_t m[3] = {0, 1, 5};
    REQUIRE(session->set_input(0, shape2(1, 3), x, sizeof(x)).ok());
    REQUIRE(session->set_input(1, shape2(1, 3), m, sizeof(m)).ok());
    REQUIRE(session->set_input(2, shape2(1, 2), p, sizeof(p)).ok());
    REQUIRE(session->run().ok());
    CHECK(session->output(1).as<int32_t>()[2] == 13);
    REQUIRE(session->set_input(0, shape2(1, 3), x, sizeof(x)).ok());
    REQUIRE(session->set_input(2, shape2(1, 2), p, sizeof(p)).ok());
    REQUIRE(session->run().ok());
    CHECK(session->output(1).as<int32_t>()[2] == 2 * fill + 3);

    // A required input stays required.
    REQUIRE(session->set_input(2, shape2(1, 2), p, sizeof(p)).ok());
    CHECK(contains(session->run(), "input 'x' not set since the last run"));
  }
}

TEST_CASE("only an i32 or f32 input may be optional") {
  AlignedBuffer output(optional_inputs_model(1, true));
  CHECK(contains(Model::from_bytes(output.data(), output.size()).status(), "'y': only an input may be optional"));
  AlignedBuffer bytes(optional_inputs_model(1, false, DType::kF16));
  CHECK(contains(Model::from_bytes(bytes.data(), bytes.size()).status(), "optional input 'm' is F16"));
}
