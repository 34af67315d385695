// The committed goldens (tests/goldens, written by tests/models/make_goldens.sh from
// PyTorch references): the same parity checks as the live tests, on models converted
// once, so they also run under qemu for aarch64 and armv7 where PyTorch does not.
#include <doctest/doctest.h>

#include "support/model_checks.h"

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
