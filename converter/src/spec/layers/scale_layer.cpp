// {"op": "scale"}: y = x * scale + shift with constants (a temperature, a logit scale,
// 1/sqrt(d) outside attention; schema/focal.fbs ScaleOptions). A non-finite value (a
// number past f32's range) is refused by the engine op's check, naming the layer.
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> scale_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  if (!l.has("scale")) return l.fail("needs \"scale\": the constant to multiply by, e.g. \"scale\": 0.125");
  fb::ScaleOptionsT options;
  options.scale = l.fields.at("scale").get<float>();
  options.shift = l.fields.value("shift", 0.0f);
  return elementwise_layer(l, x, options);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
