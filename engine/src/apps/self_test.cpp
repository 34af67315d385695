#include "focal/self_test.h"

#include <cmath>
#include <cstring>

#include "focal/internal/graph.h"

namespace focal {
namespace {

Shape value_shape(const fb::TensorValue& value) {
  Shape shape;
  shape.rank = static_cast<int>(value.shape()->size());
  for (int i = 0; i < shape.rank; ++i) shape.dims[i] = value.shape()->Get(i);
  return shape;
}

int input_index_of(const Model& model, int tensor) {
  for (int i = 0; i < model.input_count(); ++i) {
    if (model.input_tensor(i) == tensor) return i;
  }
  return -1;
}

// Compares one output with its expected value; updates the report's worst errors.
bool output_matches(const Session& session, const fb::TensorValue& expected,
                    const fb::SelfTestCase& test_case, SelfTestReport& report) {
  const TensorView got = session.tensor_view(expected.tensor());
  const Shape want_shape = value_shape(expected);
  if (got.dtype != DType::kF32 || got.shape.rank != want_shape.rank) return false;
  for (int i = 0; i < want_shape.rank; ++i) {
    if (got.shape.dims[i] != want_shape.dims[i]) return false;
  }
  const uint8_t* want_bytes = session.model().data_segment() + expected.data()->offset();
  const float* actual = got.as<float>();
  bool ok = true;
  for (int64_t i = 0; i < want_shape.element_count(); ++i) {
    float want;
    std::memcpy(&want, want_bytes + i * sizeof(float), sizeof(float));
    const float error = std::fabs(actual[i] - want);
    const float allowed = test_case.atol() + test_case.rtol() * std::fabs(want);
    // NaN (a NaN output, or one expected) stays NaN in the ratio, so the report says so
    // rather than "worst error 0" next to a failure.
    const float ratio = std::isnan(error) || std::isnan(allowed) ? NAN
                        : allowed > 0.0f                         ? error / allowed
                                                                 : (error > 0.0f ? INFINITY : 0.0f);
    // NaN compares false everywhere: count it as a failure explicitly.
    if (!(error <= allowed)) ok = false;
    if (error > report.max_abs_error || std::isnan(error)) report.max_abs_error = error;
    if (ratio > report.worst_tolerance_ratio || std::isnan(ratio))
      report.worst_tolerance_ratio = ratio;
  }
  return ok;
}

}  // namespace

Result<SelfTestReport> run_self_tests(Session& session) {
  const Model& model = session.model();
  const fb::Model& schema = model.schema();
  SelfTestReport report;
  if (schema.self_tests() == nullptr) return report;
  for (const fb::SelfTestCase* test_case : *schema.self_tests()) {
    session.reset_state();  // each case is a fresh sequence (KV caches start empty)
    for (const fb::TensorValue* value : *test_case->inputs()) {
      const int input = input_index_of(model, value->tensor());
      FOCAL_RETURN_IF_ERROR(session.set_input(input, value_shape(*value),
                                              model.data_segment() + value->data()->offset(),
                                              static_cast<size_t>(value->data()->size())));
    }
    FOCAL_RETURN_IF_ERROR(session.run());
    bool passed = true;
    for (const fb::TensorValue* expected : *test_case->expected_outputs()) {
      passed = output_matches(session, *expected, *test_case, report) && passed;
    }
    report.cases += 1;
    report.failed_cases += passed ? 0 : 1;
  }
  return report;
}

}  // namespace focal
