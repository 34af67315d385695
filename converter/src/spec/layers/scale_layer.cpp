// {"op": "scale"}: y = x * scale + shift with constants (a temperature, a logit scale,
// 1/sqrt(d) outside attention; schema/focal.fbs ScaleOptions).
#include <cmath>

#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> scale_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  if (!l.has("scale")) return l.fail("needs \"scale\": the constant to multiply by, e.g. \"scale\": 0.125");
  const float scale = l.fields.at("scale").get<float>();
  const float shift = l.fields.value("shift", 0.0f);
  if (!std::isfinite(scale) || !std::isfinite(shift)) return l.fail("\"scale\" and \"shift\" must be finite numbers");
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x)));  // a declared state, or a new activation
  return l.c.b.scale(l.name, x, scale, shift, y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
