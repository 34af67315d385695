// The committed goldens (tests/goldens, written by tests/models/make_goldens.sh from
// PyTorch references): the same parity checks as the live tests, on models converted
// once, so they also run under qemu for aarch64 and armv7 where PyTorch does not.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "support/model_checks.h"
#include "support/rnn_checks.h"

using namespace focal;

namespace {

std::vector<testing::ModelCase> goldens(const char* family) {
  auto found = testing::model_cases(FOCAL_GOLDEN_DIR, family);
  REQUIRE_MESSAGE(!found.empty(), "no golden of ", family, " in " FOCAL_GOLDEN_DIR);
  return found;
}

}  // namespace

TEST_CASE("goldens: encoders") {
  for (const char* family : {"bert", "torch-encoder"}) {
    for (const auto& c : goldens(family)) {
      CAPTURE(c.name());
      CHECK(testing::encoder_error(c, *testing::load_golden(c), "golden") <= testing::kF32Tolerance);
    }
  }
}

TEST_CASE("goldens: decoders, greedy tokens exactly") {
  for (const char* family : {"gpt2", "llama"}) {
    for (const auto& c : goldens(family)) {
      CAPTURE(c.name());
      testing::check_decoder(c, *testing::load_golden(c));
    }
  }
}

TEST_CASE("goldens: encoder-decoder, whole and step by step") {
  for (const auto& c : goldens("torch-transformer")) {
    CAPTURE(c.name());
    testing::check_encoder_decoder(c, *testing::load_golden(c));
  }
}

TEST_CASE("goldens: RNN seq2seq (teacher-forced, greedy, beam) and the attention-pooled classifier") {
  for (const auto& c : goldens("rnn-seq2seq")) {
    CAPTURE(c.name());
    testing::check_seq2seq(c, *testing::load_golden(c));
  }
  for (const auto& c : goldens("rnn-classifier")) {
    CAPTURE(c.name());
    testing::check_rnn_classifier(c, *testing::load_golden(c));
  }
}

namespace {

// The liveness lower bound, computed here independently of the planner: at each op,
// the bytes of every non-constant tensor alive then (written at or before it and read
// at or after it; inputs from the start, outputs to the end, states throughout). No
// plan can use less arena than the largest of these sums.
uint64_t liveness_lower_bound(const Model& m) {
  const int ops = m.op_count();
  std::vector<int> first(static_cast<size_t>(m.tensor_count()), ops), last(first.size(), -1);
  for (int t = 0; t < m.tensor_count(); ++t) {
    const TensorRole role = m.tensor(t).role;
    if (role == TensorRole::kInput || role == TensorRole::kState) first[static_cast<size_t>(t)] = -1;
    if (role == TensorRole::kOutput || role == TensorRole::kState) last[static_cast<size_t>(t)] = ops;
  }
  for (int o = 0; o < ops; ++o) {
    for (int i = 0; i < m.op(o).input_count; ++i) {
      const int t = m.op_input(o, i);
      if (t >= 0) last[static_cast<size_t>(t)] = std::max(last[static_cast<size_t>(t)], o);
    }
    for (int i = 0; i < m.op(o).output_count; ++i) {
      const int t = m.op_output(o, i);
      first[static_cast<size_t>(t)] = std::min(first[static_cast<size_t>(t)], o);
      last[static_cast<size_t>(t)] = std::max(last[static_cast<size_t>(t)], o);
    }
  }
  uint64_t bound = 0;
  for (int o = 0; o < ops; ++o) {
    uint64_t alive = 0;
    for (int t = 0; t < m.tensor_count(); ++t) {
      const TensorInfo info = m.tensor(t);
      if (info.role == TensorRole::kConstant) continue;
      if (first[static_cast<size_t>(t)] <= o && o <= last[static_cast<size_t>(t)]) alive += info.max_bytes;
    }
    bound = std::max(bound, alive);
  }
  return bound;
}

}  // namespace

TEST_CASE("memory plans: within 10% of the liveness lower bound, and no growth over the recorded size") {
  // Arena bytes recorded when the goldens were made; a plan more than 3% larger fails.
  const std::pair<const char*, uint64_t> recorded[] = {
      {"bert_l2_d32_h4", 33024},
      {"torch_encoder_postln_relu_mean_l2_d32_h4", 33024},
      {"gpt2_l2_d32_h4", 409600},
      {"llama_mqa_hd16_l3_d32_h4_kv1", 471040},
      {"torch_transformer_postln_relu_e2_d1_d32_h4", 74240},
      {"rnn_bahdanau_lstm_bi_l1_e16_h16_hd24", 19776},
      {"rnn_classifier_sigmoid_e16_h16_a12", 12544},
  };
  for (const auto& entry : recorded) {
    const std::string name = entry.first;
    CAPTURE(name);
    testing::ModelCase c;
    c.dir = std::string(FOCAL_GOLDEN_DIR) + "/" + name;
    auto loaded = testing::load_golden(c);
    const uint64_t arena = loaded->model->arena_bytes();
    const uint64_t bound = liveness_lower_bound(*loaded->model);
    MESSAGE(name, ": arena ", arena, " bytes, liveness lower bound ", bound);
    CHECK(arena >= bound);
    CHECK(static_cast<double>(arena) <= 1.10 * static_cast<double>(bound));
    CHECK(static_cast<double>(arena) <= 1.03 * static_cast<double>(entry.second));
  }
}
