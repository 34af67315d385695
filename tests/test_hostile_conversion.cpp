// Checkpoints whose contents no trained model has: refused at conversion, naming the
// tensor, instead of converting with a self-test that happens not to reach the fault.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "presets/weights.h"

using namespace focal;
using namespace focal::convert;

namespace {

Checkpoint one_tensor(const std::vector<float>& values) {
  CheckpointTensor t;
  t.name = "encoder.weight";
  t.type = ElementType::kF32;
  t.shape = {static_cast<int64_t>(values.size())};
  t.bytes.resize(values.size() * sizeof(float));
  std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
  Checkpoint c;
  c.path = "test";
  c.tensors.push_back(t);
  return c;
}

}  // namespace

TEST_CASE("hostile: a NaN or infinite weight is refused at conversion, naming the tensor and element") {
  for (float poison : {NAN, INFINITY, -INFINITY}) {
    CAPTURE(poison);
    std::vector<Checkpoint> checkpoints;
    checkpoints.push_back(one_tensor({0.5f, -1.0f, poison, 2.0f}));
    WeightSource source(std::move(checkpoints));
    const Result<Matrix> m = source.get("encoder.weight", {4});
    REQUIRE(!m.ok());
    const std::string message = m.status().message();
    CHECK(message.find("'encoder.weight'") != std::string::npos);
    CHECK(message.find("element 2") != std::string::npos);
  }
  std::vector<Checkpoint> fine;
  fine.push_back(one_tensor({0.5f, -1.0f, 3.0e38f, 2.0f}));
  WeightSource source(std::move(fine));
  CHECK(source.get("encoder.weight", {4}).ok());
}
