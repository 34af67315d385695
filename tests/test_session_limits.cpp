// Session creation and input checks: arenas too small or misaligned, limits beyond the
// plan, inputs of the wrong size, shape or length.
#include <doctest/doctest.h>

#include <cstring>

#include "focal/focal.h"
#include "support/aligned_buffer.h"
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
