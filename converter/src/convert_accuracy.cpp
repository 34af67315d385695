#include "convert_accuracy.h"

#include "calibration_inputs.h"
#include "convert_self_test.h"
#include "reference/generated_inputs.h"

namespace focal {
namespace convert {
namespace {

bool names_auto(const std::string& keep) {
  return keep == "auto" || keep.rfind("auto,", 0) == 0 || keep.find(",auto") != std::string::npos;
}

// The calibration cases, or the self-test's generated inputs as the one case.
Result<std::vector<std::vector<reference::Value>>> measurement_cases(const ConvertOptions& options, const Model& model,
                                                                     std::string* described) {
  if (options.calibration_dir.empty()) {
    *described = "the generated self-test inputs (give real ones with --calibration DIR)";
    return std::vector<std::vector<reference::Value>>{reference::generate_inputs(model)};
  }
  Result<std::vector<std::vector<reference::Value>>> cases = read_calibration_cases(options.calibration_dir, model);
  if (cases.ok()) *described = std::to_string(cases->size()) + " calibration cases from " + options.calibration_dir;
  return cases;
}

}  // namespace

Status check_int8_options(const ConvertOptions& options) {
  if (options.int8_activations && options.dtype != DType::kI8) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--activations int8 multiplies int8 weights by int8 activations: add --dtype int8");
  }
  if (options.dtype == DType::kI4 && options.group_size != 0 && options.group_size != 32 &&
      options.group_size != 64 && options.group_size != 128) {
    return Status::error(StatusCode::kInvalidArgument, "--group-size must be 32, 64 or 128, not %zu",
                         options.group_size);
  }
  if (options.dtype != DType::kI4 && options.group_size != 0) {
    return Status::error(StatusCode::kInvalidArgument, "--group-size is the k per scale of int4 weights: add --dtype int4");
  }
  if (options.quantize_static &&
      (options.int8_activations || (options.dtype != DType::kF32 && options.dtype != DType::kI8) ||
       options.kv_dtype != DType::kF32 || !options.keep_f32.empty() || options.keep_threshold != 0.0 ||
       !options.float_weights.empty())) {
    return Status::error(StatusCode::kInvalidArgument,
                         "--quantize static stores int8 weights and int8 activations itself: give it without "
                         "--activations, --keep-f32, --kv-dtype and with --dtype int8 or none");
  }
  const char* needs_int8 = !options.keep_f32.empty()          ? "--keep-f32"
                           : !options.calibration_dir.empty() && !options.quantize_static ? "--calibration"
                           : options.keep_threshold != 0.0    ? "--keep-f32-threshold"
                                                              : nullptr;
  if (!options.int8_activations && needs_int8 != nullptr) {
    return Status::error(StatusCode::kInvalidArgument,
                         "%s chooses layers for int8 activations: add --dtype int8 --activations int8", needs_int8);
  }
  if (options.keep_threshold != 0.0 && !names_auto(options.keep_f32)) {
    return Status::error(StatusCode::kInvalidArgument, "--keep-f32-threshold is the bound of --keep-f32 auto: add it");
  }
  return Status();
}

Result<AccuracyReport> measure_layers(const ConvertOptions& options, ModelWriter& writer) {
  Result<FileBuffer> draft = writer.finish_moving_constants();
  if (!draft.ok()) return draft.status();
  Result<Model> model = Model::from_bytes(draft->data(), draft->size());
  if (!model.ok()) return model.status();
  AccuracyReport report;
  Result<std::vector<std::vector<reference::Value>>> cases = measurement_cases(options, model.value(), &report.inputs);
  if (!cases.ok()) return cases.status();
  convert::report(options, "int8 activations: measuring each dense layer on " + report.inputs);
  Result<std::vector<LayerAccuracy>> layers = measure_int8_accuracy(model.value(), cases.value());
  if (!layers.ok()) return layers.status();
  report.layers = std::move(layers).value();
  report.threshold = options.keep_threshold != 0.0 ? options.keep_threshold : kDefaultKeepThreshold;
  const Status chosen = choose_kept_layers(options.keep_f32, &report);
  if (!chosen.ok()) {
    std::string names;
    for (const LayerAccuracy& layer : report.layers) names += "\n  " + layer.weight;
    convert::report(options, "the dense weights --keep-f32 can name:" + names);
    return chosen;
  }
  convert::report(options, "int8 activations: " + std::to_string(report.kept()) + " of " +
                               std::to_string(report.layers.size()) + " dense layers stay weight-only int8");
  return report;
}

std::set<std::string> kept_weights(const AccuracyReport& report) {
  std::set<std::string> names;
  for (const LayerAccuracy& layer : report.layers) {
    if (layer.kept) names.insert(layer.weight);
  }
  return names;
}

}  // namespace convert
}  // namespace focal
