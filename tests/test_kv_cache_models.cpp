// f16 and int8 KV caches on trained and PyTorch-referenced decoders, against the same
// model with an f32 cache (which matches PyTorch within 1e-4: test_models.cpp): the
// prompt, then 64 greedy steps of the f32-cache model fed to both (teacher forcing),
// every step's logits compared; then each cache's own greedy continuation, token by token.
//
// Two error measures over a step's logits, the worst over all steps is reported:
//  - relative to the logits' scale: max |got - want| / max |want| (the issue's "within
//    1e-2 of f32-KV logits"): int8 <= 1e-2, f16 <= 1e-3;
//  - the model checks' elementwise |got - want| / (|want| + 1), which near-zero logits
//    make an absolute error: reported, and bounded at 1e-1 (int8) and 1e-2 (f16).
// Measured (2026-12-02): the story model, int8 6.3e-3 / 5.5e-2 at worst, f16 3.2e-4 /
// 1.8e-3, every greedy token equal; the GPT-2 and Llama random-weight cases below.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "convert.h"
#include "focal/tokenizer.h"
#include "support/model_checks.h"

using namespace focal;

namespace {

constexpr size_t kSteps = 64;

struct KvBounds {
  DType kv;
  const char* label;
  double scaled, elementwise;
};
// The trained story model (the bound, 1e-2 of the logits' scale, for int8).
constexpr KvBounds kStoryBounds[] = {{DType::kF16, "f16", 1e-3, 1e-2}, {DType::kI8, "int8", 1e-2, 1e-1}};
// Random-weight cases: measured worst int8 3.1e-2 / 1.2e-1 (llama_gqa_l2_d64_h8_kv2), f16
// 1.6e-3 / 4.2e-3; bounds with some margin.
constexpr KvBounds kCaseBounds[] = {{DType::kF16, "f16", 3e-3, 1e-2}, {DType::kI8, "int8", 5e-2, 2e-1}};

std::unique_ptr<testing::LoadedCase> convert_with_cache(convert::ConvertOptions options, DType kv) {
  options.kv_dtype = kv;
  auto converted = convert::convert_checkpoint(options);
  REQUIRE_MESSAGE(converted.ok(), converted.status().message());
  return testing::load_model_bytes(converted->bytes);
}

// Runs `ids` (appended to the cache) and returns the last position's logits.
std::vector<float> step(Session& s, const int32_t* ids, size_t count) {
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(count);
  REQUIRE(s.set_input(s.find_input("input_ids"), shape, ids, count * 4).ok());
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
  const TensorView logits = s.output(s.find_output("logits"));
  const float* p = static_cast<const float*>(logits.data);
  return std::vector<float>(p, p + logits.shape.dims[logits.shape.rank - 1]);
}

int32_t argmax(const std::vector<float>& x) {
  return static_cast<int32_t>(std::max_element(x.begin(), x.end()) - x.begin());
}

struct Errors {
  double scaled = 0.0, elementwise = 0.0;
  void add(const std::vector<float>& got, const std::vector<float>& want) {
    double largest = 0.0, worst = 0.0;
    for (size_t i = 0; i < want.size(); ++i) {
      const double e = std::fabs(double(got[i]) - want[i]);
      largest = std::max(largest, std::fabs(double(want[i])));
      worst = std::max(worst, e);
      elementwise = std::max(elementwise, e / (std::fabs(double(want[i])) + 1.0));
    }
    scaled = std::max(scaled, largest > 0.0 ? worst / largest : worst);
  }
};

// Greedy continuation of `prompt` by kSteps tokens, with each step's logits.
std::vector<int32_t> greedy(Session& s, const std::vector<int32_t>& prompt, std::vector<std::vector<float>>* logits) {
  s.reset_state();
  std::vector<int32_t> tokens;
  std::vector<float> last = step(s, prompt.data(), prompt.size());
  for (size_t t = 0; t < kSteps; ++t) {
    if (logits != nullptr) logits->push_back(last);
    tokens.push_back(argmax(last));
    if (t + 1 < kSteps) last = step(s, &tokens.back(), 1);
  }
  return tokens;
}

// Compares `other`'s cache with `f32`'s on one prompt (see the file comment); returns
// how many of its own greedy tokens equal f32's.
size_t compare_caches(Session& f32, Session& other, const std::vector<int32_t>& prompt, Errors* errors) {
  std::vector<std::vector<float>> want;
  const std::vector<int32_t> tokens = greedy(f32, prompt, &want);
  other.reset_state();
  errors->add(step(other, prompt.data(), prompt.size()), want[0]);
  for (size_t t = 1; t < kSteps; ++t) errors->add(step(other, &tokens[t - 1], 1), want[t]);
  const std::vector<int32_t> own = greedy(other, prompt, nullptr);
  size_t equal = 0;
  for (size_t t = 0; t < kSteps; ++t) equal += own[t] == tokens[t] ? 1 : 0;
  return equal;
}

void check_bounds(const KvBounds& b, const std::string& what, const Errors& e, size_t equal, size_t required) {
  MESSAGE(std::string(b.label), " KV, ", what, ": logit error ", e.scaled, " of the logits' scale (bound ", b.scaled, "), ",
          e.elementwise, " elementwise (bound ", b.elementwise, "); ", equal, " of ", kSteps,
          " greedy tokens equal to the f32 cache's");
  CHECK(e.scaled <= b.scaled);
  CHECK(e.elementwise <= b.elementwise);
  CHECK(equal >= required);
}

std::vector<int32_t> encode(const Model& model, const std::string& text) {
  auto tokenizer = Tokenizer::from_model(model);
  REQUIRE(tokenizer.ok());
  std::vector<uint64_t> scratch(Tokenizer::encode_scratch_bytes(text.size()) / 8 + 1);
  std::vector<int32_t> ids(text.size() + 8);
  auto count = tokenizer->encode(text.data(), text.size(), ids.data(), ids.size(), scratch.data(), scratch.size() * 8);
  REQUIRE(count.ok());
  ids.resize(count.value());
  return ids;
}

}  // namespace

TEST_CASE("story model: f16 and int8 KV caches within their bound of the f32 cache, greedy tokens compared") {
  const std::string dir = std::string(FOCAL_DEMO_DIR) + "/story";
  convert::ConvertOptions options;
  options.preset = "gpt2";
  options.weights = {dir + "/model.safetensors"};
  options.config = dir + "/config.json";
  options.tokenizer = "bpe:" + dir + "/vocab.json:" + dir + "/merges.txt";
  auto f32 = convert_with_cache(options, DType::kF32);
  std::ifstream prompts(dir + "/prompts.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(prompts, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  REQUIRE(lines.size() >= 3);
  for (const KvBounds& b : kStoryBounds) {
    auto other = convert_with_cache(options, b.kv);
    for (const std::string& text : lines) {
      Errors errors;
      const size_t equal = compare_caches(*f32->session, *other->session, encode(*f32->model, text), &errors);
      check_bounds(b, "'" + text + "'", errors, equal, kSteps * 9 / 10);
    }
  }
}

// Random-weight cases (tests/models/make_reference.py) have near-tied logits, so a small
// change may flip a greedy choice and the continuations part: most tokens must agree.
TEST_CASE("GPT-2 and Llama cases: f16 and int8 KV caches within their bound of the f32 cache") {
  for (const char* family : {"gpt2", "llama"}) {
    for (const testing::ModelCase& c : testing::cases_of(family)) {
      convert::ConvertOptions options;
      options.preset = c.spec.at("preset").get<std::string>();
      options.weights = {c.dir + "/" + c.spec.at("weights").get<std::string>()};
      options.config = c.dir + "/config.json";
      options.max_seq = 80;
      auto f32 = convert_with_cache(options, DType::kF32);
      std::vector<int32_t> prompt;
      for (float id : c.array("inputs/prompt_ids").to_f32()) prompt.push_back(static_cast<int32_t>(id));
      for (const KvBounds& b : kCaseBounds) {
        auto other = convert_with_cache(options, b.kv);
        Errors errors;
        const size_t equal = compare_caches(*f32->session, *other->session, prompt, &errors);
        check_bounds(b, c.name(), errors, equal, kSteps / 2);
      }
    }
  }
}
