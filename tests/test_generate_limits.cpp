// focal::generate refuses, before running anything, a prompt plus new tokens beyond the
// session's KV cache, also for counts whose sum wraps size_t (32 bits on armhf).
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "focal/generate.h"
#include "support/model_cases.h"

using namespace focal;

namespace {

bool count_token(int32_t, void* user) {
  ++*static_cast<size_t*>(user);
  return true;
}

struct Decoder {
  std::unique_ptr<testing::LoadedCase> loaded;
  std::vector<uint32_t> scratch;
  std::optional<Sampler> sampler;
};

std::unique_ptr<Decoder> golden_gpt2() {
  auto cases = testing::model_cases(FOCAL_GOLDEN_DIR, "gpt2");
  REQUIRE(!cases.empty());
  auto decoder = std::make_unique<Decoder>();
  decoder->loaded = testing::load_golden(cases.front());
  const Model& model = *decoder->loaded->model;
  const size_t vocab = size_t(model.tensor(model.output_tensor(0)).shape.dims[1]);
  decoder->scratch.resize(sampler_scratch_bytes(vocab) / 4);
  auto sampler = Sampler::create(SamplingOptions(), vocab, decoder->scratch.data(), decoder->scratch.size() * 4);
  REQUIRE(sampler.ok());
  decoder->sampler.emplace(sampler.value());
  return decoder;
}

}  // namespace

TEST_CASE("hostile: generate with max_new_tokens = SIZE_MAX is refused before running") {
  auto decoder = golden_gpt2();
  Session& session = *decoder->loaded->session;
  const int32_t prompt[] = {5, 17, 3};
  const size_t capacity = size_t(session.cache_capacity());
  REQUIRE(capacity > 3);

  for (const size_t max_new : {SIZE_MAX, SIZE_MAX - 1, SIZE_MAX - 2, capacity - 3 + 2}) {
    CAPTURE(max_new);
    GenerateOptions options;
    options.max_new_tokens = max_new;
    size_t produced = 0;
    const Status status = generate(session, prompt, 3, *decoder->sampler, options, count_token, &produced);
    CHECK(status.code() == StatusCode::kOutOfRange);
    CHECK(produced == 0);
    CHECK(session.cached_length() == 0);
  }

  // The longest that fits: the prompt and every new token but the last fill the cache.
  GenerateOptions fits;
  fits.max_new_tokens = capacity - 3 + 1;
  size_t produced = 0;
  CHECK(generate(session, prompt, 3, *decoder->sampler, fits, count_token, &produced).ok());
  CHECK(produced == fits.max_new_tokens);
}

TEST_CASE("hostile: generate with a prompt longer than the cache is refused before running") {
  auto decoder = golden_gpt2();
  Session& session = *decoder->loaded->session;
  const std::vector<int32_t> prompt(size_t(session.cache_capacity()) + 1, 7);
  GenerateOptions options;
  options.max_new_tokens = 1;
  size_t produced = 0;
  const Status status =
      generate(session, prompt.data(), prompt.size(), *decoder->sampler, options, count_token, &produced);
  CHECK(status.code() == StatusCode::kOutOfRange);
  CHECK(produced == 0);
}
