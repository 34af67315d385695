// --quantize static from the draft (convert_static.h).
#include "convert_static.h"

#include <cmath>
#include <cstring>

#include "assign_or_return.h"
#include "calibration_inputs.h"
#include "convert_self_test.h"
#include "engine_run.h"
#include "focal/focal.h"
#include "quantize/activation_ranges.h"
#include "quantize/static_graph.h"
#include "reference/self_test_cases.h"

namespace focal {
namespace convert {
namespace {

using reference::Value;

// The calibration cases: --calibration DIR's, else the draft's self-test inputs.
Result<std::vector<std::vector<Value>>> calibration_cases(const ConvertOptions& options, const Model& draft,
                                                          std::string* described) {
  if (!options.calibration_dir.empty()) {
    FOCAL_ASSIGN_OR_RETURN(auto cases, read_calibration_cases(options.calibration_dir, draft));
    *described = std::to_string(cases.size()) + " calibration cases";
    return cases;
  }
  std::vector<std::vector<Value>> cases;
  for (const reference::SelfTestValues& c : reference::stored_self_tests(draft)) cases.push_back(c.inputs);
  if (cases.empty()) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--quantize static needs calibration inputs: --calibration DIR, or a self-test");
  }
  *described = std::to_string(cases.size()) + " self-test input case(s) (no --calibration given)";
  return cases;
}

// Outputs written by an f32 op (Softmax) are not compared bit for bit (convert_static.h).
bool exact_output(const Model& model, int tensor) {
  for (int i = 0; i < model.op_count(); ++i) {
    if (model.op_output(i, 0) == tensor || model.op_output(i, 1) == tensor) {
      return std::strcmp(model.op(i).kind, "Softmax") != 0;
    }
  }
  return false;
}

// The largest |int8 - expected| per output over the cases, reported; beyond the draft's
// tolerance with given expected outputs, an error.
Status compare(const ConvertOptions& options, const Model& draft, const reference::SelfTestValues& c, const Session& s,
               bool given, std::vector<double>* worst) {
  for (size_t k = 0; k < c.expected.size(); ++k) {
    const Value& want = c.expected[k];
    const TensorView got = s.output(s.find_output(draft.tensor(want.tensor).name));
    for (size_t i = 0; i < want.values.size(); ++i) {
      const double error = std::fabs(double(got.as<float>()[i]) - want.values[i]);
      (*worst)[k] = std::max((*worst)[k], error);
      if (given && error > c.atol + c.rtol * std::fabs(want.values[i])) {
        return Status::error(StatusCode::kInvalidModel,
                             "--quantize static: output '%s' element %zu is %g with int8 activations, expected %g "
                             "(tolerance %g + %g |expected|): the calibration does not fit these inputs",
                             draft.tensor(want.tensor).name, i, double(got.as<float>()[i]), want.values[i],
                             double(c.atol), double(c.rtol));
      }
    }
  }
  (void)options;
  return Status();
}

// Runs the int8 model (`writer` as it stands) on the draft's self-test inputs: the
// self-test it stores (bit-exact outputs) and the accuracy lines.
Result<SelfTestSpec> own_self_test(const ConvertOptions& options, const Model& draft, ModelWriter& writer, bool given) {
  EngineRun run;
  FOCAL_ASSIGN_OR_RETURN(const std::vector<uint8_t> file, writer.finish());
  FOCAL_RETURN_IF_ERROR(start_engine(file, run));
  SelfTestSpec spec;  // atol = rtol = 0: bit for bit
  const std::vector<reference::SelfTestValues> cases = reference::stored_self_tests(draft);
  std::vector<double> worst(cases.empty() ? 0 : cases[0].expected.size(), 0.0);
  for (size_t n = 0; n < cases.size() && n < 1; ++n) {  // one case, as the draft's self-test has
    FOCAL_RETURN_IF_ERROR(set_inputs_by_name(
        *run.session, draft, cases[n].inputs, [&](const char* name, const Value& v, std::vector<uint8_t> bytes) {
          spec.inputs.push_back({writer.find_tensor(name), std::vector<int64_t>(v.shape.dims, v.shape.dims + v.shape.rank),
                                 std::move(bytes)});
        }));
    FOCAL_RETURN_IF_ERROR(run.session->run());
    for (int o = 0; o < run.model->output_count(); ++o) {
      const int t = run.model->output_tensor(o);
      if (!exact_output(*run.model, t)) continue;
      const TensorView view = run.session->output(o);
      const auto* bytes = static_cast<const uint8_t*>(view.data);
      spec.expected_outputs.push_back({t, std::vector<int64_t>(view.shape.dims, view.shape.dims + view.shape.rank),
                                       std::vector<uint8_t>(bytes, bytes + view.shape.element_count() * 4)});
    }
    FOCAL_RETURN_IF_ERROR(compare(options, draft, cases[n], *run.session, given, &worst));
  }
  for (size_t k = 0; k < worst.size(); ++k) {
    char line[200];
    (void)std::snprintf(line, sizeof(line), "static int8: '%s' within %.3g of %s", draft.tensor(cases[0].expected[k].tensor).name,
                        worst[k], given ? "the given expected outputs" : "the f32 model in double precision");
    report(options, line);
  }
  return spec;
}

}  // namespace

Result<Converted> quantize_static_from_draft(const ConvertOptions& options, const FileBuffer& draft_file,
                                             bool draft_expected_given) {
  FOCAL_ASSIGN_OR_RETURN(const Model draft, Model::from_bytes(draft_file.data(), draft_file.size()));
  std::string described;
  FOCAL_ASSIGN_OR_RETURN(const auto cases, calibration_cases(options, draft, &described));
  report(options, "static int8: activation ranges from " + described + " in double precision");
  FOCAL_ASSIGN_OR_RETURN(const quantize::Ranges ranges, quantize::measure_ranges(draft, cases));
  ModelWriter writer;
  FOCAL_RETURN_IF_ERROR(quantize::write_static_int8(draft, ranges, described, &writer));
  Converted converted;
  if (options.self_test) {
    FOCAL_ASSIGN_OR_RETURN(SelfTestSpec spec, own_self_test(options, draft, writer, draft_expected_given));
    writer.add_self_test(std::move(spec));
  }
  FOCAL_ASSIGN_OR_RETURN(FileBuffer file, writer.finish_moving_constants());
  FOCAL_RETURN_IF_ERROR(load_and_self_test(file, &converted));
  converted.bytes.assign(file.data(), file.data() + file.size());
  return converted;
}

}  // namespace convert
}  // namespace focal
