// `--fit` per layer (fit.h): from a choice that stores its dense weights quantized (int8
// or int4, f32 activations) and fits the part, dense weights stored in f32 instead, one
// layer at a time, while the part has room and the error goes down.
//
// Each quantized dense weight is first tried alone in f32 (one conversion each); those
// that lower the error are then added in the order of how much they lower it alone, the
// best one's lone conversion being the first mix, each other kept only if the model with
// it still fits and is more accurate than without (one more conversion each). At most kMaxFitLayers weights are tried: --fit is for models that
// fit a microcontroller, each try is a whole conversion.
#pragma once

#include <string>
#include <vector>

#include "fit/fit_measure.h"

namespace focal {
namespace convert {

constexpr size_t kMaxFitLayers = 64;

struct LayerMix {
  std::vector<std::string> f32_weights;  // empty: no layer in f32 did better than the base
  FitChoice choice;                      // the mix, measured
  Converted converted;
};

// `base_options` and `base`: the choice to start from (measured, fits), `base_bytes` its
// model. `report_to`: the options whose progress callback gets the per-layer line (the
// base options have none: each conversion would print its own).
Result<LayerMix> mix_layers(const ConvertOptions& base_options, const FitChoice& base,
                            const std::vector<uint8_t>& base_bytes, const FitMeasure& measure,
                            const ConvertOptions& report_to);

}  // namespace convert
}  // namespace focal
