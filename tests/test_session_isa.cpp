// A session on each instruction set this build has and this CPU runs
// (SessionOptions::isa): every op of the tiny model on that set's kernels, against the
// double-precision forward pass; the int8 GEMM at the best variant the set allows.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "dispatch/kernel_set.h"
#include "focal/focal.h"
#include "qgemm/qgemm_kernels.h"
#include "support/aligned_buffer.h"
#include "support/tiny_model.h"

using namespace focal;
using focal::testing::AlignedBuffer;

namespace {

// The worst |got - want| / (1e-5 + 1e-4 |want|) over the logits and probabilities of one
// run at [2, 7].
double worst_error(Session& session) {
  const auto x = testing::random_values(2 * 7 * 8, 35, -3, 3);
  REQUIRE(session.set_input(0, testing::tiny_input_shape(2, 7), x.data(), x.size() * sizeof(float)).ok());
  REQUIRE(session.run().ok());
  const auto want = testing::tiny_forward_double(testing::TinyConfig(), x, 2, 7);
  double worst = 0;
  for (size_t i = 0; i < want.logits.size(); ++i) {
    worst = std::max(worst, std::fabs(session.output(0).as<float>()[i] - want.logits[i]) /
                                (1e-5 + 1e-4 * std::fabs(want.logits[i])));
    worst = std::max(worst, std::fabs(session.output(1).as<float>()[i] - want.probs[i]) /
                                (1e-5 + 1e-4 * std::fabs(want.probs[i])));
  }
  return worst;
}

}  // namespace

TEST_CASE("a session runs on each usable instruction set it names") {
  AlignedBuffer f32_file(testing::build_tiny_model());
  testing::TinyConfig int8_config;
  int8_config.weight_type = DType::kI8;
  int8_config.int8_activations = true;
  AlignedBuffer int8_file(testing::build_tiny_model(int8_config));
  auto f32_model = Model::from_bytes(f32_file.data(), f32_file.size());
  auto int8_model = Model::from_bytes(int8_file.data(), int8_file.size());
  REQUIRE(f32_model.ok());
  REQUIRE(int8_model.ok());
  AlignedBuffer f32_arena(Session::required_arena_bytes(*f32_model, SessionOptions()).value());
  AlignedBuffer int8_arena(Session::required_arena_bytes(*int8_model, SessionOptions()).value());

  const kernels::KernelSets& sets = kernels::usable_kernel_sets();
  REQUIRE(sets.count >= 1);
  CHECK(std::string(sets.sets[0]->isa) == "scalar");
  for (int i = 0; i < sets.count; ++i) {
    const kernels::KernelSet& set = *sets.sets[i];
    CAPTURE(std::string(set.isa));
    SessionOptions options;
    options.isa = set.isa;
    auto f32 = Session::create(*f32_model, options, f32_arena.data(), f32_arena.size());
    REQUIRE_MESSAGE(f32.ok(), f32.status().message());
    CHECK(std::string(f32->isa()) == set.isa);
    const double worst = worst_error(f32.value());
    CHECK(worst <= 1.0);  // |err| <= 1e-5 + 1e-4 |want| everywhere

    // The named set's int8 variant: one this CPU runs, scalar for the scalar set, the
    // best variant for the best set.
    CHECK(kernels::qgemm_variant_usable(*set.qgemm));
    if (i == 0) CHECK(std::string(set.qgemm->isa) == "scalar");
    if (i == sets.count - 1) CHECK(set.qgemm == &kernels::best_qgemm_kernels());
    auto int8 = Session::create(*int8_model, options, int8_arena.data(), int8_arena.size());
    REQUIRE(int8.ok());
    auto report = run_self_tests(int8.value());
    REQUIRE(report.ok());
    CHECK(report->failed_cases == 0);
    MESSAGE(std::string(set.isa) << ": worst error/tolerance " << worst << ", int8 GEMM "
                                 << std::string(set.qgemm->isa) << ", int8 self-test worst "
                                 << report->worst_tolerance_ratio);
  }
  // Null: the best set, as named by the best instruction set.
  auto best = Session::create(*f32_model, SessionOptions(), f32_arena.data(), f32_arena.size());
  REQUIRE(best.ok());
  CHECK(std::string(best->isa()) == sets.sets[sets.count - 1]->isa);
  CHECK(std::string(best->isa()) == kernels::best_kernel_set().isa);
}

TEST_CASE("a session refuses an instruction set this build or CPU does not have") {
  AlignedBuffer file(testing::build_tiny_model());
  auto model = Model::from_bytes(file.data(), file.size());
  REQUIRE(model.ok());
  AlignedBuffer arena(Session::required_arena_bytes(*model, SessionOptions()).value());
  for (const char* name : {"not-an-isa", "", "best", "AVX2"}) {
    CAPTURE(std::string(name));
    SessionOptions options;
    options.isa = name;
    auto session = Session::create(*model, options, arena.data(), arena.size());
    CHECK(session.status().code() == StatusCode::kUnsupported);
    CHECK(std::strstr(session.status().message(), "instruction set") != nullptr);
  }
}
