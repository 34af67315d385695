// The static int8 golden (tests/goldens/static_int8_sentiment, written by
// tests/models/make_static_int8_golden.sh): the trained sentiment classifier on int8
// activations. Its stored self-test holds the logits and attention weights the host
// computed at conversion with atol = rtol = 0, so passing it on a core means the same
// integers, bit for bit; this runs it on every instruction set this build and CPU have,
// natively and under qemu for aarch64 and armv7. The Cortex-M example's static int8
// classifier and encoder (targets/cortex-m/examples/classify/models/classifier_static_int8.focal,
// encoder_static_int8.focal), whose self-tests the firmware passes on the M4, M7 and M55,
// pass them here too: one file each, the same integers on all six targets.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "dispatch/kernel_set.h"
#include "focal/focal.h"
#include "support/model_cases.h"

using namespace focal;

namespace {

testing::ModelCase sentiment_golden() {
  auto found = testing::model_cases(FOCAL_GOLDEN_DIR, "static-int8");
  REQUIRE_MESSAGE(found.size() == 1, "one static-int8 golden in " FOCAL_GOLDEN_DIR);
  return found[0];
}

// Runs the model's stored self-test on a session per usable instruction set: every case
// passes with a largest error of exactly 0 (its logits and attention weights are stored
// with atol = rtol = 0). Returns the sessions' count.
int self_test_bit_for_bit(testing::LoadedCase& loaded) {
  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int i = 0; i < sets.count; ++i) {
    CAPTURE(std::string(sets.sets[i]->isa));
    SessionOptions options;
    options.isa = sets.sets[i]->isa;
    auto session = Session::create(*loaded.model, options, loaded.arena->data(), loaded.arena->size());
    REQUIRE_MESSAGE(session.ok(), session.status().message());
    auto report = run_self_tests(session.value());
    REQUIRE_MESSAGE(report.ok(), report.status().message());
    CHECK(report->cases >= 1);
    CHECK(report->failed_cases == 0);
    CHECK(report->max_abs_error == 0.0f);
  }
  return sets.count;
}

// Largest |probability - PyTorch's float64 probability| over the golden's 16 reviews.
double probability_error(const testing::ModelCase& c, Session& session) {
  testing::set_input(session, "input_ids", c.array("inputs/input_ids"));
  testing::set_input(session, "attention_mask", c.array("inputs/attention_mask"));
  REQUIRE(session.run().ok());
  const auto want = c.array("expected/probabilities").to_f32();
  const float* got = session.output(session.find_output("probabilities")).as<float>();
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(double(got[i]) - double(want[i])));
  return worst;
}

}  // namespace

TEST_CASE("goldens: static int8 activations, the same integers on every instruction set") {
  const testing::ModelCase c = sentiment_golden();
  auto loaded = testing::load_golden(c);
  REQUIRE(loaded->model->self_test_count() >= 1);
  self_test_bit_for_bit(*loaded);
  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  for (int i = 0; i < sets.count; ++i) {
    CAPTURE(std::string(sets.sets[i]->isa));
    SessionOptions options;
    options.isa = sets.sets[i]->isa;
    auto session = Session::create(*loaded->model, options, loaded->arena->data(), loaded->arena->size());
    REQUIRE_MESSAGE(session.ok(), session.status().message());
    const double error = probability_error(c, session.value());
    MESSAGE(std::string(sets.sets[i]->isa), ": self-test bit for bit, probabilities within ", error,
            " of PyTorch float64");
    CHECK(error <= c.spec.at("atol").get<double>());
  }
}

namespace {

// A Cortex-M example model's bit-exact self-test, on every instruction set here.
void firmware_model_bit_for_bit(const std::string& name) {
  std::ifstream in(FOCAL_FIRMWARE_MODEL_DIR "/" + name, std::ios::binary);
  REQUIRE(in);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto loaded = testing::load_model_bytes(bytes);
  REQUIRE(loaded->model->self_test_count() >= 1);
  MESSAGE(name, ": self-test bit for bit on ", self_test_bit_for_bit(*loaded), " instruction sets");
}

}  // namespace

TEST_CASE("goldens: the Cortex-M example's static int8 classifier passes its bit-exact self-test here too") {
  firmware_model_bit_for_bit("classifier_static_int8.focal");
}

TEST_CASE("goldens: the Cortex-M example's static int8 encoder passes its bit-exact self-test here too") {
  // Integer attention, layer norms, residual adds and GELU table; last_hidden_state and
  // the logits through the dequantizing Scale and Dense, compared bit for bit.
  firmware_model_bit_for_bit("encoder_static_int8.focal");
}
