// `--fit` per layer (fit_layers.h).
#include "fit/fit_layers.h"

#include <algorithm>
#include <utility>

#include "assign_or_return.h"
#include "convert_self_test.h"
#include "engine_run.h"

namespace focal {
namespace convert {
namespace {

// The model's quantized dense weights (int8 or int4 constants), in tensor order. The
// token table of an int8 table is among them; keeping it "f32" changes nothing (only
// dense weights follow float_weights), so its try gains nothing and it is dropped.
Result<std::vector<std::string>> quantized_weights(const std::vector<uint8_t>& bytes) {
  EngineRun run;
  FOCAL_RETURN_IF_ERROR(start_engine(bytes, run));
  std::vector<std::string> names;
  for (int t = 0; t < run.model->tensor_count(); ++t) {
    const TensorInfo info = run.model->tensor(t);
    if (info.role == TensorRole::kConstant && (info.dtype == DType::kI8 || info.dtype == DType::kI4)) {
      names.emplace_back(info.name);
    }
  }
  return names;
}

struct Gain {
  double error_drop;
  std::string weight;
};

// Each weight alone in f32: those that fit and lower the error, most first, and the
// best one's conversion in `best_alone` (the first mix tried, so it is not converted twice).
Result<std::vector<Gain>> single_gains(const ConvertOptions& base_options, const FitChoice& base,
                                       const std::vector<std::string>& weights, const FitMeasure& measure,
                                       LayerMix* best_alone) {
  std::vector<Gain> gains;
  for (const std::string& weight : weights) {
    ConvertOptions o = base_options;
    o.float_weights = {weight};
    FitChoice alone;
    Converted converted;
    FOCAL_RETURN_IF_ERROR(convert_and_measure(o, measure, &alone, &converted));
    if (!alone.unavailable.empty() || !alone.fits || alone.error >= base.error) continue;
    gains.push_back({base.error - alone.error, weight});
    if (best_alone->f32_weights.empty() || alone.error < best_alone->choice.error) {
      *best_alone = LayerMix{{weight}, std::move(alone), std::move(converted)};
    }
  }
  std::stable_sort(gains.begin(), gains.end(), [](const Gain& a, const Gain& b) { return a.error_drop > b.error_drop; });
  return gains;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ",") + name;
  return text;
}

}  // namespace

Result<LayerMix> mix_layers(const ConvertOptions& base_options, const FitChoice& base,
                            const std::vector<uint8_t>& base_bytes, const FitMeasure& measure,
                            const ConvertOptions& report_to) {
  LayerMix mix;
  FOCAL_ASSIGN_OR_RETURN(const std::vector<std::string> weights, quantized_weights(base_bytes));
  if (weights.size() > kMaxFitLayers) {
    report(report_to, "fit: per layer: " + std::to_string(weights.size()) + " dense weights, more than " +
                          std::to_string(kMaxFitLayers) + " to try; keeping " + base.name);
    return mix;
  }
  FOCAL_ASSIGN_OR_RETURN(const std::vector<Gain> gains, single_gains(base_options, base, weights, measure, &mix));
  report(report_to, "fit: per layer: " + std::to_string(gains.size()) + " of " + std::to_string(weights.size()) +
                        " quantized weights lower the error in f32 and fit");
  if (gains.empty()) return mix;
  // The best weight alone is the first mix (measured already); the others are added to it.
  double error = mix.choice.error;
  for (size_t g = 1; g < gains.size(); ++g) {
    const Gain& gain = gains[g];
    ConvertOptions o = base_options;
    o.float_weights = mix.f32_weights;
    o.float_weights.push_back(gain.weight);
    FitChoice tried;
    Converted converted;
    FOCAL_RETURN_IF_ERROR(convert_and_measure(o, measure, &tried, &converted));
    if (!tried.unavailable.empty() || !tried.fits || tried.error >= error) continue;
    error = tried.error;
    mix.f32_weights = std::move(o.float_weights);
    mix.choice = std::move(tried);
    mix.converted = std::move(converted);
  }
  const size_t n = mix.f32_weights.size();
  mix.choice.name = base.name + ", " + std::to_string(n) + (n == 1 ? " layer" : " layers") + " f32";
  mix.choice.options = base.options + " (f32: " + joined(mix.f32_weights) + ")";
  return mix;
}

}  // namespace convert
}  // namespace focal
