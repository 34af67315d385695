#include "support/rnn_checks.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "focal/translate.h"
#include "support/model_checks.h"

namespace focal {
namespace testing {
namespace {

std::vector<int32_t> ints(const convert::CheckpointTensor& t) {
  std::vector<int32_t> out;
  for (float v : t.to_f32()) out.push_back(static_cast<int32_t>(v));
  return out;
}

const float* output(Session& s, const char* name) {
  const int index = s.find_output(name);
  REQUIRE(index >= 0);
  return static_cast<const float*>(s.output(index).data);
}

// The whole batch encoded at once (ragged rows), then every step fed PyTorch's greedy
// token: logits and attention against PyTorch's at each of the steps.
double teacher_forced_error(const ModelCase& c, Session& s, const std::vector<int32_t>& greedy, int64_t batch,
                            int64_t steps) {
  const auto logits = c.array("expected/greedy_logits");
  const auto attention = c.array("expected/greedy_attention");
  const int64_t vocab = logits.shape[2], src = attention.shape[2];
  const std::vector<float> want_logits = logits.to_f32(), want_attention = attention.to_f32();
  s.reset_state();
  set_seq2seq_source(s, c);
  REQUIRE(s.run_stage(s.find_stage("encode")).ok());
  const int32_t bos = c.spec.value("bos_id", 1);
  double worst = 0.0;
  std::vector<int32_t> prev(static_cast<size_t>(batch), bos);
  for (int64_t t = 0; t < steps; ++t) {
    Shape shape;
    shape.rank = 1;
    shape.dims[0] = batch;
    REQUIRE(s.set_input(seq2seq_input(s, "decoder_input_ids"), shape, prev.data(), prev.size() * 4).ok());
    const Status status = s.run_stage(s.find_stage("decode"));
    REQUIRE_MESSAGE(status.ok(), status.message());
    for (int64_t b = 0; b < batch; ++b) {
      const float* got = output(s, "logits") + b * vocab;
      const float* got_attention = output(s, "attention") + b * src;
      for (int64_t v = 0; v < vocab; ++v) {
        const double want = want_logits[size_t((b * steps + t) * vocab + v)];
        worst = std::max(worst, std::fabs(got[v] - want) / (std::fabs(want) + 1.0));
      }
      for (int64_t j = 0; j < src; ++j) {
        worst = std::max(worst, double(std::fabs(got_attention[j] - want_attention[size_t((b * steps + t) * src + j)])));
      }
      prev[size_t(b)] = greedy[size_t(b * steps + t)];
    }
  }
  return worst;
}

}  // namespace

int seq2seq_input(const Session& s, const std::string& name) {
  const char* older = name == "input_ids"        ? "source_ids"
                      : name == "attention_mask" ? "source_mask"
                                                 : "prev_ids";
  const int index = s.find_input(name.c_str());
  return index >= 0 ? index : s.find_input(older);
}

void set_seq2seq_source(Session& s, const ModelCase& c) {
  const bool older = s.find_input("input_ids") < 0;
  set_input(s, older ? "source_ids" : "input_ids", c.array("inputs/source_ids"));
  set_input(s, older ? "source_mask" : "attention_mask", c.array("inputs/source_mask"));
}

// These recurrences amplify rounding (the reference draws large weights so that decoding
// is not degenerate): PyTorch in float32 lands up to case.json's torch_f32_error from its
// own float64 result, and any other f32 summation order lands within a few times that
// (the release and debug builds differ by 2x on the GRU cases). The engine must stay
// within 4x PyTorch f32's error, and never beyond 1e-4 where that is smaller.
double seq2seq_tolerance(const ModelCase& c) {
  return std::max(kF32Tolerance, 4.0 * c.spec.value("torch_f32_error", 0.0));
}

void check_seq2seq(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  // The tokens the conversion read from the config (by transformers' names or our older
  // ones), stored for focal::translate: the ones the reference decodes with.
  for (const auto& [key, fallback] : {std::pair<const char*, int>{"bos_id", 1}, {"eos_id", 2}}) {
    const char* stored = loaded.model->hyperparameter(key);
    REQUIRE_MESSAGE(stored != nullptr, key);
    CHECK_MESSAGE(std::string(stored) == std::to_string(c.spec.value(key, fallback)), key);
  }
  const double tolerance = seq2seq_tolerance(c);
  const auto greedy_t = c.array("expected/greedy_ids");
  const std::vector<int32_t> greedy = ints(greedy_t);
  const int64_t batch = greedy_t.shape[0], steps = greedy_t.shape[1];
  const double forced = teacher_forced_error(c, s, greedy, batch, steps);
  MESSAGE(c.name(), ": max logit/attention error over ", steps, " teacher-forced steps: ", forced,
          " (PyTorch f32: ", c.spec.value("torch_f32_error", 0.0), ")");
  CHECK(forced <= tolerance);

  // Greedy decoding, one source at a time through focal::translate: PyTorch's tokens.
  const std::vector<int32_t> sources = ints(c.array("inputs/source_ids"));
  const std::vector<int32_t> masks = ints(c.array("inputs/source_mask"));
  const int64_t src = c.array("inputs/source_ids").shape[1];
  const std::vector<float> want_attention = c.array("expected/greedy_attention").to_f32();
  TranslateOptions options;
  options.max_steps = size_t(steps);
  options.eos_id = -1;  // the reference always decodes every step
  options.bos_id = c.spec.value("bos_id", 1);
  std::vector<uint64_t> scratch(translate_scratch_bytes(options, size_t(src)) / 8 + 1);
  for (int64_t b = 0; b < batch; ++b) {
    const int64_t length = std::count(masks.begin() + b * src, masks.begin() + (b + 1) * src, 1);
    std::vector<int32_t> tokens(static_cast<size_t>(steps));
    std::vector<float> alignment(static_cast<size_t>(steps * length));
    auto result = translate(s, sources.data() + b * src, size_t(length), options, scratch.data(), scratch.size() * 8,
                            tokens.data(), alignment.data());
    REQUIRE_MESSAGE(result.ok(), result.status().message());
    CHECK(std::vector<int32_t>(greedy.begin() + b * steps, greedy.begin() + (b + 1) * steps) == tokens);
    double worst = 0.0;
    for (int64_t t = 0; t < steps; ++t) {
      for (int64_t j = 0; j < length; ++j) {
        worst = std::max(worst, double(std::fabs(alignment[size_t(t * length + j)] -
                                                  want_attention[size_t((b * steps + t) * src + j)])));
      }
    }
    CHECK(worst <= tolerance);
  }

  // Beam search on row 0's source.
  if (!c.spec.contains("beam")) return;
  const auto& beam = c.spec.at("beam");
  TranslateOptions beam_options;
  beam_options.beam_width = beam.at("width").get<size_t>();
  beam_options.max_steps = beam.at("max_steps").get<size_t>();
  beam_options.length_penalty = beam.at("alpha").get<float>();
  beam_options.eos_id = beam.at("eos_id").get<int32_t>();
  beam_options.bos_id = c.spec.value("bos_id", 1);
  const int64_t length = std::count(masks.begin(), masks.begin() + src, 1);
  std::vector<uint64_t> beam_scratch(translate_scratch_bytes(beam_options, size_t(length)) / 8 + 1);
  std::vector<int32_t> tokens(beam_options.max_steps);
  auto result = translate(s, sources.data(), size_t(length), beam_options, beam_scratch.data(),
                          beam_scratch.size() * 8, tokens.data(), nullptr);
  const std::string message = result.ok() ? "" : result.status().message();
  REQUIRE_MESSAGE(result.ok(), message);
  tokens.resize(result->length);
  CHECK(tokens == ints(c.array("expected/beam_ids")));
  CHECK(result->score == doctest::Approx(c.array("expected/beam_score").to_f32()[0]).epsilon(1e-4));
}

void check_rnn_classifier(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  set_input(s, "input_ids", c.array("inputs/input_ids"));
  set_input(s, "attention_mask", c.array("inputs/attention_mask"));
  const Status status = s.run();
  REQUIRE_MESSAGE(status.ok(), status.message());
  for (const char* name : {"logits", "probabilities", "attention"}) {
    const auto want = c.array(std::string("expected/") + name);
    const double error = max_error(output(s, name), want.to_f32(), want.shape);
    MESSAGE(c.name(), " ", std::string(name), ": max error ", error);
    CHECK(error <= kF32Tolerance);
  }
}

void check_rnn_classifier_without_mask(const ModelCase& c, LoadedCase& loaded) {
  Session& s = *loaded.session;
  const auto ids = c.array("inputs/input_ids");
  const std::vector<int32_t> id_values = ints(ids), masks = ints(c.array("inputs/attention_mask"));
  const int64_t rows = ids.shape[0], seq = ids.shape[1];
  for (int64_t b = 0; b < rows; ++b) {
    const int64_t length = std::count(masks.begin() + b * seq, masks.begin() + (b + 1) * seq, 1);
    const std::vector<int32_t> row(id_values.begin() + b * seq, id_values.begin() + b * seq + length);
    Shape shape;
    shape.rank = 2;
    shape.dims[0] = 1;
    shape.dims[1] = length;
    REQUIRE(s.set_input(s.find_input("input_ids"), shape, row.data(), row.size() * 4).ok());
    const Status alone = s.run();
    REQUIRE_MESSAGE(alone.ok(), alone.message());
    for (const char* name : {"logits", "probabilities", "attention"}) {
      const std::vector<float> want = c.array(std::string("expected/") + name).to_f32();
      const TensorView got = s.output(s.find_output(name));
      const int64_t width = got.shape.dims[1], stride = static_cast<int64_t>(want.size()) / rows;
      double worst = 0.0;
      for (int64_t k = 0; k < width; ++k) {
        const double diff = std::abs(double(static_cast<const float*>(got.data)[k]) - want[size_t(b * stride + k)]);
        worst = std::max(worst, diff);
      }
      CAPTURE(b);
      CAPTURE(name);
      CHECK(worst <= kF32Tolerance);
    }
  }
}

void check_keras_classifier(const ModelCase& c, LoadedCase& loaded) {
  const Model& model = *loaded.model;
  REQUIRE(model.input_count() == 1);
  CHECK(std::string(model.tensor(model.input_tensor(0)).name) == "input_ids");
  check_rnn_classifier_without_mask(c, loaded);
}

namespace {

std::vector<std::string> input_names(const Model& model) {
  std::vector<std::string> names;
  for (int i = 0; i < model.input_count(); ++i) names.emplace_back(model.tensor(model.input_tensor(i)).name);
  return names;
}

// Row b of the case alone, at its valid length, with input_ids only: the worst logit and
// attention error over the teacher-forced steps.
double row_without_mask_error(const ModelCase& c, Session& s, int64_t b) {
  const auto sources = c.array("inputs/source_ids"), greedy_t = c.array("expected/greedy_ids");
  const std::vector<int32_t> ids = ints(sources), masks = ints(c.array("inputs/source_mask")), greedy = ints(greedy_t);
  const std::vector<float> want_logits = c.array("expected/greedy_logits").to_f32(),
                           want_attention = c.array("expected/greedy_attention").to_f32();
  const int64_t src = sources.shape[1], steps = greedy_t.shape[1];
  const int64_t vocab = static_cast<int64_t>(want_logits.size()) / (greedy_t.shape[0] * steps);
  const int64_t length = std::count(masks.begin() + b * src, masks.begin() + (b + 1) * src, 1);
  const std::vector<int32_t> row(ids.begin() + b * src, ids.begin() + b * src + length);
  s.reset_state();
  Shape shape;
  shape.rank = 2;
  shape.dims[0] = 1;
  shape.dims[1] = length;
  REQUIRE(s.set_input(s.find_input("input_ids"), shape, row.data(), row.size() * 4).ok());
  const Status encoded = s.run_stage(s.find_stage("encode"));
  REQUIRE_MESSAGE(encoded.ok(), encoded.message());
  double worst = 0.0;
  int32_t prev = c.spec.value("bos_id", 1);
  for (int64_t t = 0; t < steps; ++t) {
    Shape one;
    one.rank = 1;
    one.dims[0] = 1;
    REQUIRE(s.set_input(s.find_input("decoder_input_ids"), one, &prev, 4).ok());
    const Status decoded = s.run_stage(s.find_stage("decode"));
    REQUIRE_MESSAGE(decoded.ok(), decoded.message());
    const float* got = output(s, "logits");
    for (int64_t v = 0; v < vocab; ++v) {
      const double want = want_logits[size_t((b * steps + t) * vocab + v)];
      worst = std::max(worst, std::fabs(got[v] - want) / (std::fabs(want) + 1.0));
    }
    const float* got_attention = output(s, "attention");
    for (int64_t j = 0; j < length; ++j) {
      worst = std::max(worst, double(std::fabs(got_attention[j] - want_attention[size_t((b * steps + t) * src + j)])));
    }
    prev = greedy[size_t(b * steps + t)];
  }
  return worst;
}

}  // namespace

void check_seq2seq_without_mask(const ModelCase& c, LoadedCase& loaded) {
  const Model& model = *loaded.model;
  CHECK(input_names(model) == std::vector<std::string>{"input_ids", "attention_mask", "decoder_input_ids"});
  const int mask = loaded.session->find_input("attention_mask");
  REQUIRE(mask >= 0);
  CHECK(model.tensor(model.input_tensor(mask)).absent_fill == 1);
  const int64_t rows = c.array("inputs/source_ids").shape[0];
  for (int64_t b = 0; b < rows; ++b) {
    const double error = row_without_mask_error(c, *loaded.session, b);
    CAPTURE(b);
    MESSAGE(c.name(), " row ", b, " alone without attention_mask: max logit/attention error ", error);
    CHECK(error <= seq2seq_tolerance(c));
  }
}

}  // namespace testing
}  // namespace focal
