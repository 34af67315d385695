// The transformer ops' contracts beyond parity: errors from the run's data (token ids,
// masks, a full KV cache), attention weight capture, the loader's rules for states,
// stages and optional operands, and the sampler.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "focal/generate.h"
#include "focal/model.h"
#include "focal/session.h"
#include "model_writer.h"
#include "support/aligned_buffer.h"
#include "support/model_cases.h"
#include "support/tiny_decoder.h"
#include "support/tiny_model.h"

using namespace focal;

namespace {

constexpr int64_t kVocab = testing::kTinyDecoderVocab, kWidth = testing::kTinyDecoderWidth,
                  kContext = testing::kTinyDecoderContext;
using testing::tiny_decoder;

std::unique_ptr<testing::LoadedCase> load(const std::vector<uint8_t>& bytes) {
  return testing::load_model_bytes(bytes);
}

Shape ids_shape(int64_t count) {
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = count;
  return shape;
}

Status run_ids(Session& s, std::vector<int32_t> ids) {
  FOCAL_RETURN_IF_ERROR(s.set_input(0, ids_shape(static_cast<int64_t>(ids.size())), ids.data(), ids.size() * 4));
  return s.run();
}

std::vector<float> logits_of(Session& s) {
  const float* p = static_cast<const float*>(s.output(0).data);
  return std::vector<float>(p, p + kVocab);
}

}  // namespace

TEST_CASE("a KV-cached decoder: prefill plus steps equals one longer prefill") {
  auto a = load(tiny_decoder());
  auto b = load(tiny_decoder());
  Session& stepped = *a->session;
  Session& whole = *b->session;
  REQUIRE(stepped.cache_capacity() == kContext);
  REQUIRE(run_ids(stepped, {3, 1, 4}).ok());
  REQUIRE(run_ids(stepped, {1}).ok());
  REQUIRE(run_ids(stepped, {5}).ok());
  CHECK(stepped.cached_length() == 5);
  REQUIRE(run_ids(whole, {3, 1, 4, 1, 5}).ok());
  const std::vector<float> x = logits_of(stepped), y = logits_of(whole);
  for (int64_t v = 0; v < kVocab; ++v) CHECK(x[size_t(v)] == doctest::Approx(y[size_t(v)]).epsilon(1e-5));
}

TEST_CASE("a sequence longer than the KV cache is refused before anything changes") {
  auto loaded = load(tiny_decoder());
  Session& s = *loaded->session;
  REQUIRE(run_ids(s, {1, 2, 3, 4}).ok());
  const Status status = run_ids(s, {5, 6, 7});
  CHECK(status.code() == StatusCode::kOutOfRange);
  CHECK(std::strstr(status.message(), "longer than planned") != nullptr);
  CHECK(s.cached_length() == 4);
  CHECK(run_ids(s, {5, 6}).ok());  // exactly full still works
  CHECK(s.cached_length() == kContext);
  s.reset_state();
  CHECK(run_ids(s, {1, 2, 3}).ok());
}

TEST_CASE("a token id out of range is an error of the run, naming the id") {
  auto loaded = load(tiny_decoder());
  Session& s = *loaded->session;
  for (int32_t bad : {int32_t(kVocab), int32_t(-1), int32_t(1) << 30}) {
    const Status status = run_ids(s, {1, bad});
    CHECK(status.code() == StatusCode::kOutOfRange);
    CHECK(std::strstr(status.message(), std::to_string(bad).c_str()) != nullptr);
  }
}

TEST_CASE("attention weights are captured on request: rows sum to 1, causal entries are 0") {
  auto loaded = load(tiny_decoder());
  Session& s = *loaded->session;
  const int attention_op = 1;
  std::vector<float> weights(2 * 4 * 4, -1.0f);
  CHECK(s.capture_attention(0, weights.data(), weights.size()).code() == StatusCode::kInvalidArgument);
  REQUIRE(s.capture_attention(attention_op, weights.data(), weights.size()).ok());
  REQUIRE(run_ids(s, {3, 1, 4, 1}).ok());
  for (int h = 0; h < 2; ++h) {
    for (int i = 0; i < 4; ++i) {
      double sum = 0.0;
      for (int j = 0; j < 4; ++j) {
        const float w = weights[size_t((h * 4 + i) * 4 + j)];
        if (j > i) CHECK(w == 0.0f);
        sum += w;
      }
      CHECK(sum == doctest::Approx(1.0).epsilon(1e-5));
    }
  }
  s.reset_state();
  REQUIRE(s.capture_attention(attention_op, weights.data(), 3).ok());
  CHECK(run_ids(s, {3, 1}).code() == StatusCode::kResourceExhausted);
  REQUIRE(s.capture_attention(attention_op, nullptr, 0).ok());
  s.reset_state();
  CHECK(run_ids(s, {3, 1}).ok());
}

TEST_CASE("the loader refuses an activation carried from one stage to another") {
  const std::vector<uint8_t> bytes = tiny_decoder(DType::kF32, true);
  testing::AlignedBuffer file(bytes);
  const auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(!model.ok());
  CHECK(std::strstr(model.status().message(), "only states cross stages") != nullptr);
}

namespace {

std::vector<uint8_t> masked_encoder() {
  ModelWriter w;
  const int batch = w.add_symbol("batch", 2);
  const int seq = w.add_symbol("seq", 4);
  const int x = w.add_input("x", DType::kF32, {2, 4, kWidth}, {batch, seq, -1});
  const int mask = w.add_input("attention_mask", DType::kI32, {2, 4}, {batch, seq});
  ModelWriter::MultiHeadAttentionSpec s;
  uint32_t seed = 3;
  const auto weights = [&](const char* name) {
    return w.add_constant_f32(name, {kWidth, kWidth}, testing::random_values(size_t(kWidth * kWidth), ++seed));
  };
  s.x = x;
  s.wq = weights("wq");
  s.wk = weights("wk");
  s.wv = weights("wv");
  s.wo = weights("wo");
  s.key_mask = mask;
  s.num_heads = s.num_kv_heads = 2;
  s.head_dim = 4;
  const int y = w.add_output("y", DType::kF32, {2, 4, kWidth}, {batch, seq, -1});
  w.add_multi_head_attention("attention", s, y);
  return w.finish().value();
}

}  // namespace

TEST_CASE("a key mask that is not 1s then 0s is refused, naming the position") {
  auto loaded = load(masked_encoder());
  Session& s = *loaded->session;
  const std::vector<float> x = testing::random_values(2 * 4 * kWidth, 9);
  Shape xs;
  xs.rank = 3;
  xs.dims[0] = 2;
  xs.dims[1] = 4;
  xs.dims[2] = kWidth;
  Shape ms;
  ms.rank = 2;
  ms.dims[0] = 2;
  ms.dims[1] = 4;
  const int32_t good[] = {1, 1, 1, 0, 1, 0, 0, 0};
  const int32_t holes[] = {1, 1, 1, 1, 1, 0, 1, 0};
  REQUIRE(s.set_input(0, xs, x.data(), x.size() * 4).ok());
  REQUIRE(s.set_input(1, ms, good, sizeof(good)).ok());
  CHECK(s.run().ok());
  REQUIRE(s.set_input(0, xs, x.data(), x.size() * 4).ok());
  REQUIRE(s.set_input(1, ms, holes, sizeof(holes)).ok());
  const Status status = s.run();
  CHECK(status.code() == StatusCode::kInvalidArgument);
  CHECK(std::strstr(status.message(), "[1, 2]") != nullptr);
}

TEST_CASE("the sampler: greedy is argmax, top-k 1 is greedy, seeds repeat, frequencies follow softmax") {
  const float logits[] = {0.1f, 2.0f, -1.0f, 1.5f, NAN};
  std::vector<uint32_t> scratch(sampler_scratch_bytes(5) / 4);
  auto greedy = Sampler::create(SamplingOptions(), 5, scratch.data(), scratch.size() * 4);
  REQUIRE(greedy.ok());
  CHECK(greedy->sample(logits) == 1);

  SamplingOptions top1;
  top1.temperature = 1.0f;
  top1.top_k = 1;
  auto k1 = Sampler::create(top1, 5, scratch.data(), scratch.size() * 4);
  for (int i = 0; i < 20; ++i) CHECK(k1->sample(logits) == 1);

  SamplingOptions warm;
  warm.temperature = 1.0f;
  warm.seed = 42;
  auto a = Sampler::create(warm, 5, scratch.data(), scratch.size() * 4);
  std::vector<uint32_t> scratch2(scratch.size());
  auto b = Sampler::create(warm, 5, scratch2.data(), scratch2.size() * 4);
  int counts[5] = {};
  const int draws = 20000;
  for (int i = 0; i < draws; ++i) {
    const int32_t x = a->sample(logits);
    CHECK(x == b->sample(logits));
    counts[x]++;
  }
  CHECK(counts[4] == 0);  // NaN is never chosen
  double total = 0.0;
  for (int i = 0; i < 4; ++i) total += std::exp(double(logits[i]));
  for (int i = 0; i < 4; ++i) {
    const double p = std::exp(double(logits[i])) / total;
    // 5 standard deviations of a binomial count.
    CHECK(std::fabs(counts[i] - p * draws) <= 5.0 * std::sqrt(p * (1 - p) * draws));
  }

  SamplingOptions nucleus;
  nucleus.temperature = 1.0f;
  nucleus.top_p = 0.5f;  // token 1 alone holds about 0.52 of the mass
  auto p = Sampler::create(nucleus, 5, scratch.data(), scratch.size() * 4);
  for (int i = 0; i < 50; ++i) CHECK(p->sample(logits) == 1);

  SamplingOptions bad;
  bad.top_p = 0.0f;
  CHECK(!Sampler::create(bad, 5, scratch.data(), scratch.size() * 4).ok());
  CHECK(!Sampler::create(SamplingOptions(), 5, scratch.data(), 3).ok());
}
