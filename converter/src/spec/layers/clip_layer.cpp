// {"op": "clip"}: y = min(max(x, min), max) elementwise, torch.clamp and ONNX Clip
// (schema/focal.fbs ClipOptions): "min", "max" or both, an absent one an open side, e.g.
// {"min": 0, "max": 6} for ReLU6. As torch.clamp, at least one bound is required. The
// engine op's check refuses min > max or a NaN bound, naming the layer.
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> clip_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  if (!l.has("min") && !l.has("max")) {
    return l.fail("needs \"min\", \"max\" or both: the bounds, e.g. \"min\": 0, \"max\": 6 for ReLU6");
  }
  fb::ClipOptionsT options;  // -inf and inf: both sides open
  if (l.has("min")) options.min = l.fields.at("min").get<float>();
  if (l.has("max")) options.max = l.fields.at("max").get<float>();
  return elementwise_layer(l, x, options);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
