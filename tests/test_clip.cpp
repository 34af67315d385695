// The Clip op (engine/src/ops/clip.cpp) against the converter's double-precision
// reference function (converter/src/reference/clip_op.cpp), on shapes other than one
// vector width and at actual shapes below the planned ones, with the values that decide
// a clamp: NaN (kept, as torch.clamp keeps it), -inf and inf, the bounds and their
// neighbours, signed zeros, subnormals and f32's extremes. The two must agree exactly
// (bit for bit but for NaN payloads): a clamp selects one of x, min and max, so there is
// no rounding for them to differ in.
#include <doctest/doctest.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "model_writer.h"
#include "reference/evaluator.h"
#include "support/aligned_buffer.h"
#include "support/op_options.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// x [rows, ...] -> Clip(min, max) -> y, the first dim following symbol "rows" (planned
// at shape[0]), the others fixed.
std::vector<uint8_t> clip_model(const std::vector<int64_t>& shape, float min, float max) {
  ModelWriter w;
  std::vector<int32_t> symbols(shape.size(), -1);
  symbols[0] = w.add_symbol("rows", shape[0]);
  const int x = w.add_input("x", DType::kF32, shape, symbols);
  const int y = w.add_output("y", DType::kF32, shape, symbols);
  w.add_op("clip", testing::clip_options(min, max), {x}, {y});
  auto file = w.finish();
  REQUIRE_MESSAGE(file.ok(), file.status().message());
  return file.value();
}

// `count` values: every deciding value for bounds [min, max] first, then normal ones
// (std 8, seeded) around them.
std::vector<float> deciding_values(size_t count, float min, float max) {
  std::vector<float> values = {kNaN, -kNaN, kInf, -kInf, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
                               FLT_TRUE_MIN, -FLT_TRUE_MIN, 0.0f, -0.0f, 1.0f, -1.0f, 6.0f, -6.0f};
  for (float bound : {min, max}) {
    if (!std::isfinite(bound)) continue;
    values.insert(values.end(), {bound, std::nextafter(bound, -kInf), std::nextafter(bound, kInf)});
  }
  std::mt19937 random(35);
  std::normal_distribution<float> normal(0.0f, 8.0f);
  while (values.size() < count) values.push_back(normal(random));
  values.resize(count);
  return values;
}

Shape shape_of(const std::vector<int64_t>& dims) {
  Shape shape;
  shape.rank = static_cast<int>(dims.size());
  for (size_t i = 0; i < dims.size(); ++i) shape.dims[i] = dims[i];
  return shape;
}

// The engine's y for x at `dims` (an actual shape within the planned one).
std::vector<float> engine_clip(const Model& model, const std::vector<int64_t>& dims, const std::vector<float>& x) {
  const size_t arena_bytes = Session::required_arena_bytes(model, SessionOptions()).value();
  AlignedBuffer arena(arena_bytes);
  auto session = Session::create(model, SessionOptions(), arena.data(), arena_bytes);
  REQUIRE_MESSAGE(session.ok(), session.status().message());
  REQUIRE(session->set_input(0, shape_of(dims), x.data(), x.size() * sizeof(float)).ok());
  const Status run = session->run();
  REQUIRE_MESSAGE(run.ok(), run.message());
  const TensorView y = session->output(0);
  REQUIRE(static_cast<size_t>(y.shape.element_count()) == x.size());
  return std::vector<float>(y.as<float>(), y.as<float>() + x.size());
}

// The reference evaluator's y for the same x.
std::vector<double> reference_clip(const Model& model, const std::vector<int64_t>& dims,
                                   const std::vector<float>& x) {
  auto evaluator = reference::Evaluator::create(model);
  REQUIRE_MESSAGE(evaluator.ok(), evaluator.status().message());
  REQUIRE(evaluator->set_input(0, shape_of(dims), std::vector<double>(x.begin(), x.end())).ok());
  const Status run = evaluator->run();
  REQUIRE_MESSAGE(run.ok(), run.message());
  return evaluator->value(model.output_tensor(0)).values;
}

// Exact agreement, NaN with NaN, and the sign of a zero kept.
void check_same(const std::vector<float>& x, const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CAPTURE(i);
    CAPTURE(x[i]);
    if (std::isnan(want[i])) {
      CHECK(std::isnan(got[i]));
      continue;
    }
    CHECK(got[i] == static_cast<float>(want[i]));
    CHECK(std::signbit(got[i]) == std::signbit(want[i]));
  }
}

}  // namespace

TEST_CASE("Clip: the engine matches the double reference exactly, NaN kept, on every bound kind and shape") {
  struct Bounds {
    float min, max;
  };
  // ReLU6, hardtanh, ReLU (open above), open below, both open, a point, the zeros, f32's range.
  const Bounds bounds[] = {{0.0f, 6.0f}, {-1.0f, 1.0f}, {0.0f, kInf},    {-kInf, 0.5f},
                           {-kInf, kInf}, {2.0f, 2.0f}, {-0.0f, 0.0f}, {-FLT_MAX, FLT_MAX}};
  // Planned shapes, and the actual ones run: fewer rows than planned, and all of them.
  const std::vector<int64_t> planned[] = {{3, 5, 7}, {1, 1}, {2, 33}, {4, 3, 1, 5}, {41}};
  for (const Bounds& b : bounds) {
    for (const std::vector<int64_t>& shape : planned) {
      CAPTURE(b.min);
      CAPTURE(b.max);
      CAPTURE(shape.size());
      const std::vector<uint8_t> bytes = clip_model(shape, b.min, b.max);
      AlignedBuffer buffer(bytes);
      auto model = Model::from_bytes(buffer.data(), buffer.size());
      REQUIRE_MESSAGE(model.ok(), model.status().message());
      for (int64_t rows : {shape[0], (shape[0] + 1) / 2}) {
        std::vector<int64_t> dims = shape;
        dims[0] = rows;
        size_t count = 1;
        for (int64_t d : dims) count *= static_cast<size_t>(d);
        const std::vector<float> x = deciding_values(count, b.min, b.max);
        check_same(x, engine_clip(model.value(), dims, x), reference_clip(model.value(), dims, x));
      }
    }
  }
}

TEST_CASE("Clip: a NaN stays NaN and the bounds hold, as torch.clamp") {
  // torch.clamp(torch.tensor([nan, -inf, inf, -7., 3., 7.]), 0, 6) = [nan, 0, 6, 0, 3, 6].
  const std::vector<uint8_t> bytes = clip_model({1, 6}, 0.0f, 6.0f);
  AlignedBuffer buffer(bytes);
  auto model = Model::from_bytes(buffer.data(), buffer.size());
  REQUIRE_MESSAGE(model.ok(), model.status().message());
  const std::vector<float> y = engine_clip(model.value(), {1, 6}, {kNaN, -kInf, kInf, -7.0f, 3.0f, 7.0f});
  CHECK(std::isnan(y[0]));
  CHECK(y[1] == 0.0f);
  CHECK(y[2] == 6.0f);
  CHECK(y[3] == 0.0f);
  CHECK(y[4] == 3.0f);
  CHECK(y[5] == 6.0f);
}
