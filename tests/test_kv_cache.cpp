// KV caches stored as f16 or int8 (ModelWriter::set_kv_cache_type, focal convert
// --kv-dtype) on the tiny decoder: the planned bytes (a quarter of f32's for int8, plus
// one f32 scale per token and kv head), prefill plus steps against one longer prefill and
// against the f32 cache, and the loader's refusals of malformed caches.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "focal/model.h"
#include "focal/session.h"
#include "support/model_cases.h"
#include "support/tiny_decoder.h"

using namespace focal;

namespace {

constexpr int64_t kVocab = testing::kTinyDecoderVocab, kContext = testing::kTinyDecoderContext;

TensorInfo find(const Model& m, const char* name) {
  const int index = m.find_tensor(name);
  REQUIRE_MESSAGE(index >= 0, name);
  return m.tensor(index);
}

size_t state_bytes(const Model& m) {
  size_t bytes = 0;
  for (int t = 0; t < m.tensor_count(); ++t) {
    if (m.tensor(t).role == TensorRole::kState) bytes += m.tensor(t).max_bytes;
  }
  return bytes;
}

std::vector<float> run_ids(Session& s, std::vector<int32_t> ids) {
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(ids.size());
  REQUIRE(s.set_input(0, shape, ids.data(), ids.size() * 4).ok());
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
  const float* p = static_cast<const float*>(s.output(0).data);
  return std::vector<float>(p, p + kVocab);
}

double max_error(const std::vector<float>& got, const std::vector<float>& want) {
  double worst = 0.0;
  for (size_t i = 0; i < want.size(); ++i) {
    // A comparison, not std::fmax: aarch64 g++ 12 crashes vectorizing an fmax reduction here
    // (internal compiler error in vect_transform_reduction).
    const double e = std::fabs(double(got[i]) - want[i]) / (std::fabs(double(want[i])) + 1.0);
    if (e > worst) worst = e;
  }
  return worst;
}

std::string load_error(const std::vector<uint8_t>& bytes) {
  testing::AlignedBuffer file(bytes);
  auto model = Model::from_bytes(file.data(), file.size());
  return model.ok() ? "" : model.status().message();
}

}  // namespace

TEST_CASE("KV cache dtype: the plan holds an int8 cache in a quarter of f32's bytes plus its scales, f16 in half") {
  auto f32 = testing::load_model_bytes(testing::tiny_decoder(DType::kF32));
  auto f16 = testing::load_model_bytes(testing::tiny_decoder(DType::kF16));
  auto i8 = testing::load_model_bytes(testing::tiny_decoder(DType::kI8));
  const size_t f32_cache = find(*f32->model, "k_cache").max_bytes;
  CHECK(f32_cache == size_t(kContext * testing::kTinyDecoderWidth * 4));
  CHECK(find(*f16->model, "k_cache").dtype == DType::kF16);
  CHECK(find(*f16->model, "v_cache").max_bytes * 2 == f32_cache);
  CHECK(find(*i8->model, "k_cache").dtype == DType::kI8);
  CHECK(find(*i8->model, "v_cache").max_bytes * 4 == f32_cache);
  const TensorInfo scales = find(*i8->model, "k_cache.scales");
  CHECK(scales.role == TensorRole::kState);
  CHECK(scales.dtype == DType::kF32);
  CHECK(scales.max_bytes == size_t(kContext * 2 * 4));  // one f32 per token and kv head
  // Every state together (the cache's arena bytes): K, V and, for int8, their scales.
  CHECK(state_bytes(*i8->model) == 2 * (f32_cache / 4 + scales.max_bytes));
  CHECK(state_bytes(*f16->model) == f32_cache);
  CHECK(f32->model->arena_bytes() > i8->model->arena_bytes());
}

TEST_CASE("KV cache dtype: prefill plus steps equals one longer prefill, within the bound of the f32 cache") {
  auto f32 = testing::load_model_bytes(testing::tiny_decoder(DType::kF32));
  const std::vector<float> want = run_ids(*f32->session, {3, 1, 4, 1, 5});
  for (const auto& [kv, bound] : {std::pair<DType, double>{DType::kF16, 1e-3}, {DType::kI8, 1e-2}}) {
    CAPTURE(int(kv));
    auto a = testing::load_model_bytes(testing::tiny_decoder(kv));
    auto b = testing::load_model_bytes(testing::tiny_decoder(kv));
    Session& stepped = *a->session;
    run_ids(stepped, {3, 1, 4});
    run_ids(stepped, {1});
    const std::vector<float> x = run_ids(stepped, {5});
    CHECK(stepped.cached_length() == 5);
    const std::vector<float> y = run_ids(*b->session, {3, 1, 4, 1, 5});
    CHECK(max_error(x, y) <= 1e-5);  // each token is stored alone, however many run at once
    CHECK(max_error(y, want) <= bound);
    CHECK(max_error(y, want) > 0.0);  // the cache really is stored coarser
    stepped.reset_state();
    CHECK(max_error(run_ids(stepped, {3, 1, 4, 1, 5}), y) == 0.0);  // reset, same again
  }
}

TEST_CASE("KV cache dtype: the loader refuses int8 caches without scales and mixed or other dtypes") {
  CHECK(load_error(testing::tiny_decoder_with_states(DType::kI8, DType::kI8)).find("needs k and v scale states") !=
        std::string::npos);
  CHECK(load_error(testing::tiny_decoder_with_states(DType::kF16, DType::kF32)).find("differ in dtype") !=
        std::string::npos);
  CHECK(load_error(testing::tiny_decoder_with_states(DType::kI32, DType::kI32)).find("f16 or i8 for a KV cache") !=
        std::string::npos);
  CHECK(load_error(testing::tiny_decoder_with_states(DType::kF16, DType::kF16)).empty());  // f16 needs no scales
}
