// How `--fit` measures one choice (fit_measure.h).
#include "fit/fit_measure.h"

#include <cmath>
#include <set>

#include "assign_or_return.h"
#include "calibration_inputs.h"
#include "engine_run.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace convert {
namespace {

using reference::Value;

// The largest |output - expected| of `bytes` run by the engine over the cases; its arena.
Status measure_error(const std::vector<uint8_t>& bytes, const FitMeasure& m, FitChoice* choice) {
  EngineRun run;
  FOCAL_RETURN_IF_ERROR(start_engine(bytes, run));
  choice->arena_bytes = run.arena_bytes;
  for (const ErrorCase& c : m.cases) {
    run.session->reset_state();
    FOCAL_RETURN_IF_ERROR(set_inputs_by_name(*run.session, m.f32, c.inputs));
    FOCAL_RETURN_IF_ERROR(run.session->run());
    for (const Value& want : c.expected) {
      const int output = run.session->find_output(m.f32.tensor(want.tensor).name);
      const TensorView got = run.session->output(output);
      if (output < 0 || static_cast<size_t>(got.shape.element_count()) != want.values.size()) {
        return Status::error(StatusCode::kInvalidModel, "--fit: output '%s' differs from the f32 model's",
                             m.f32.tensor(want.tensor).name);
      }
      for (size_t i = 0; i < want.values.size(); ++i) {
        const double error = std::fabs(static_cast<double>(got.as<float>()[i]) - want.values[i]);
        choice->error = std::isnan(error) ? INFINITY : std::max(choice->error, error);
      }
    }
  }
  return Status();
}

}  // namespace

Result<std::vector<ErrorCase>> error_cases(const ConvertOptions& options, const Model& f32, std::string* measured_on) {
  std::vector<ErrorCase> cases;
  std::set<int> checked;
  for (const reference::SelfTestValues& c : reference::stored_self_tests(f32)) {
    cases.push_back({c.inputs, c.expected});
    for (const Value& v : c.expected) checked.insert(v.tensor);
  }
  *measured_on = std::to_string(cases.size()) + " self-test case(s)";
  if (options.calibration_dir.empty()) return cases;
  FOCAL_ASSIGN_OR_RETURN(const auto calibration, read_calibration_cases(options.calibration_dir, f32));
  FOCAL_ASSIGN_OR_RETURN(reference::Evaluator evaluator, reference::Evaluator::create(f32));
  for (const std::vector<Value>& inputs : calibration) {
    evaluator.reset_state();
    FOCAL_ASSIGN_OR_RETURN(std::vector<Value> outputs, reference::evaluate_outputs(evaluator, inputs));
    ErrorCase c{inputs, {}};
    for (Value& v : outputs) {
      if (checked.count(v.tensor) != 0) c.expected.push_back(std::move(v));
    }
    cases.push_back(std::move(c));
  }
  *measured_on += " and " + std::to_string(calibration.size()) + " calibration case(s)";
  return cases;
}

Status convert_and_measure(const ConvertOptions& options, const FitMeasure& measure, FitChoice* choice,
                           Converted* converted) {
  ConvertOptions once = options;
  once.fit.clear();
  Result<Converted> result = convert_checkpoint(once);
  if (!result.ok()) {
    choice->unavailable = result.status().message();
    return Status();
  }
  *converted = std::move(result).value();
  return measure_converted(*converted, measure, choice);
}

Status measure_converted(const Converted& converted, const FitMeasure& measure, FitChoice* choice) {
  choice->model_bytes = converted.bytes.size();
  FOCAL_RETURN_IF_ERROR(measure_error(converted.bytes, measure, choice));
  choice->ram = choice->arena_bytes + measure.budget.stack + measure.budget.data;
  choice->flash = choice->model_bytes + measure.budget.engine + measure.budget.app;
  choice->fits = choice->ram <= measure.budget.ram && choice->flash <= measure.budget.flash;
  return Status();
}

}  // namespace convert
}  // namespace focal
