#include "support/model_checks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include <fstream>

#include "focal/generate.h"

namespace focal {
namespace testing {
namespace {

const float* output(Session& s, const char* name) {
  const int index = s.find_output(name);
  REQUIRE(index >= 0);
  return static_cast<const float*>(s.output(index).data);
}

Shape ids_shape(size_t count) {
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = static_cast<int64_t>(count);
  return shape;
}

void run_tokens(Session& s, const int32_t* ids, size_t count) {
  REQUIRE(s.set_input(s.find_input("input_ids"), ids_shape(count), ids, count * 4).ok());
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
}

std::vector<int32_t> ints(const convert::CheckpointTensor& t) {
  std::vector<int32_t> out;
  for (float v : t.to_f32()) out.push_back(static_cast<int32_t>(v));
  return out;
}

bool collect(int32_t token, void* user) {
  static_cast<std::vector<int32_t>*>(user)->push_back(token);
  return true;
}

bool has_file(const ModelCase& c, const std::string& relative) {
  return std::ifstream(c.dir + "/" + relative + ".npy").good();
}

}  // namespace

ModelCase model_case(const char* family, const std::string& name) {
  const char* root = std::getenv("FOCAL_MODEL_CASES");
  REQUIRE_MESSAGE(root != nullptr, "FOCAL_MODEL_CASES is not set");
  for (const ModelCase& c : model_cases(root, family)) {
    if (c.name() == name) return c;
  }
  FAIL("no reference case ", name);
  return ModelCase();
}

std::vector<ModelCase> cases_of(const char* family) {
  const char* root = std::getenv("FOCAL_MODEL_CASES");
  REQUIRE_MESSAGE(root != nullptr, "FOCAL_MODEL_CASES is not set");
  std::vector<ModelCase> found = model_cases(root, family);
  REQUIRE_MESSAGE(!found.empty(), "no reference cases of ", family);
  return found;
}

double encoder_error(const ModelCase& c, LoadedCase& loaded, const char* label) {
  Session& s = *loaded.session;
  for (const auto& name : c.spec.at("inputs")) {
    set_input(s, name.get<std::string>(), c.array("inputs/" + name.get<std::string>()));
  }
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
  const bool has_mask = std::ifstream(c.dir + "/inputs/attention_mask.npy").good();
  const std::vector<float> mask = has_mask ? c.array("inputs/attention_mask").to_f32() : std::vector<float>{};
  double worst = 0.0;
  for (const auto& name : c.spec.at("outputs")) {
    const std::string n = name.get<std::string>();
    const auto want = c.array("expected/" + n);
    const bool per_position = n == "last_hidden_state" && has_mask;
    const double error = max_error(output(s, n.c_str()), want.to_f32(), want.shape, per_position ? &mask : nullptr);
    MESSAGE(c.name(), " ", std::string(label), " ", n, ": max error ", error);
    worst = std::max(worst, error);
  }
  return worst;
}

double encoder_rows_without_mask_error(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  const std::vector<int32_t> mask = ints(c.array("inputs/attention_mask"));
  const int64_t rows = c.array("inputs/attention_mask").shape[0], seq = c.array("inputs/attention_mask").shape[1];
  double worst = 0.0;
  for (int64_t b = 0; b < rows; ++b) {
    const int64_t length = std::count(mask.begin() + b * seq, mask.begin() + (b + 1) * seq, 1);
    for (const auto& name : c.spec.at("inputs")) {
      const std::string n = name.get<std::string>();
      if (n == "attention_mask") continue;
      const std::vector<int32_t> all = ints(c.array("inputs/" + n));
      const std::vector<int32_t> row(all.begin() + b * seq, all.begin() + b * seq + length);
      Shape shape;
      shape.rank = 2;
      shape.dims[0] = 1;
      shape.dims[1] = length;
      REQUIRE(s.set_input(s.find_input(n.c_str()), shape, row.data(), row.size() * 4).ok());
    }
    const Status status = s.run();
    REQUIRE_MESSAGE(status.ok(), status.message());
    for (const auto& name : c.spec.at("outputs")) {
      const std::string n = name.get<std::string>();
      const auto want_t = c.array("expected/" + n);
      const std::vector<float> want = want_t.to_f32();
      const int64_t stride = static_cast<int64_t>(want.size()) / rows;
      const int64_t count = want_t.shape.size() == 3 ? length * want_t.shape[2] : stride;  // per position: its length
      const float* got = output(s, n.c_str());
      for (int64_t k = 0; k < count; ++k) {
        worst = std::max(worst, std::abs(double(got[k]) - want[size_t(b * stride + k)]));
      }
    }
  }
  MESSAGE(c.name(), " rows alone without attention_mask: max error ", worst);
  return worst;
}

void check_decoder(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  const std::vector<int32_t> prompt = ints(c.array("inputs/prompt_ids"));
  const std::vector<int32_t> greedy = ints(c.array("expected/greedy_ids"));
  const auto prefill = c.array("expected/prefill_logits");
  const size_t vocab = static_cast<size_t>(prefill.shape[1]);

  // Prefill, then every step through the KV cache, logits against PyTorch's.
  s.reset_state();
  run_tokens(s, prompt.data(), prompt.size());
  double worst = max_error(output(s, "logits"), prefill.to_f32(), prefill.shape);
  if (has_file(c, "expected/step_logits")) {
    const std::vector<float> steps = c.array("expected/step_logits").to_f32();
    for (size_t t = 0; t + 1 < greedy.size(); ++t) {
      const std::vector<float> want(steps.begin() + static_cast<long>((t + 1) * vocab),
                                    steps.begin() + static_cast<long>((t + 2) * vocab));
      run_tokens(s, &greedy[t], 1);
      worst = std::max(worst, max_error(output(s, "logits"), want, {1, static_cast<int64_t>(vocab)}));
    }
  }
  MESSAGE(c.name(), ": max logit error over prefill and cached steps: ", worst);
  CHECK(worst <= kF32Tolerance);

  // Greedy generation through the public API yields PyTorch's tokens exactly.
  std::vector<uint32_t> scratch(sampler_scratch_bytes(vocab) / 4);
  auto sampler = Sampler::create(SamplingOptions(), vocab, scratch.data(), scratch.size() * 4);
  REQUIRE(sampler.ok());
  GenerateOptions options;
  options.max_new_tokens = greedy.size();
  std::vector<int32_t> produced;
  produced.reserve(greedy.size());
  REQUIRE(generate(s, prompt.data(), prompt.size(), sampler.value(), options, collect, &produced).ok());
  CHECK(produced == greedy);
}

namespace {

// The source's padding: PyTorch's src_key_padding_mask (1 = pad) where the model takes it
// by that name, left unset when the case has none (the module was called without a mask,
// and the model runs as if nothing were padding); else an older file's src_mask (1 = token).
void set_source_mask(const ModelCase& c, Session& s) {
  if (s.find_input("src_key_padding_mask") >= 0) {
    if (std::ifstream(c.dir + "/inputs/src_key_padding_mask.npy").good()) {
      set_input(s, "src_key_padding_mask", c.array("inputs/src_key_padding_mask"));
    }
    return;
  }
  set_input(s, "src_mask", c.array("inputs/src_mask"));
}

}  // namespace

void check_encoder_decoder(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  const auto src = c.array("inputs/src");
  const auto tgt = c.array("inputs/tgt");
  const auto want = c.array("expected/output");
  const int encode = s.find_stage("encode"), decode = s.find_stage("decode");
  REQUIRE(encode >= 0);
  REQUIRE(decode >= 0);

  s.reset_state();
  set_input(s, "src", src);
  set_source_mask(c, s);
  REQUIRE(s.run_stage(encode).ok());
  set_input(s, "tgt", tgt);
  REQUIRE(s.run_stage(decode).ok());
  const double whole = max_error(output(s, "output"), want.to_f32(), want.shape);

  // Again, one target position per decode run: the cross-attention states from the
  // single encode run are reused at every step.
  s.reset_state();
  set_input(s, "src", src);
  set_source_mask(c, s);
  REQUIRE(s.run_stage(encode).ok());
  const int64_t batch = tgt.shape[0], steps = tgt.shape[1], d = tgt.shape[2];
  const std::vector<float> tgt_values = tgt.to_f32(), want_values = want.to_f32();
  double stepwise = 0.0;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<float> row(static_cast<size_t>(batch * d)), expected(row.size());
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t k = 0; k < d; ++k) {
        row[static_cast<size_t>(b * d + k)] = tgt_values[static_cast<size_t>((b * steps + t) * d + k)];
        expected[static_cast<size_t>(b * d + k)] = want_values[static_cast<size_t>((b * steps + t) * d + k)];
      }
    }
    Shape shape;
    shape.rank = 3;
    shape.dims[0] = batch;
    shape.dims[1] = 1;
    shape.dims[2] = d;
    REQUIRE(s.set_input(s.find_input("tgt"), shape, row.data(), row.size() * 4).ok());
    REQUIRE(s.run_stage(decode).ok());
    stepwise = std::max(stepwise, max_error(output(s, "output"), expected, {batch, 1, d}));
  }
  MESSAGE(c.name(), ": max error all at once ", whole, ", one step at a time ", stepwise);
  CHECK(whole <= kF32Tolerance);
  CHECK(stepwise <= kF32Tolerance);
}

}  // namespace testing
}  // namespace focal
