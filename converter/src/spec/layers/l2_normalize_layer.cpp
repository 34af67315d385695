// {"op": "l2_normalize"}: y = x / max(||x||_2 over the last axis, epsilon), PyTorch's
// F.normalize(x, dim=-1) (schema/focal.fbs L2NormalizeOptions).
#include <cmath>

#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> l2_normalize_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  const float epsilon = l.fields.value("epsilon", 1e-12f);  // F.normalize's default eps
  if (!(epsilon > 0.0f) || !std::isfinite(epsilon)) {
    return l.fail("\"epsilon\" must be a positive finite number (F.normalize's default is 1e-12)");
  }
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x)));  // a declared state, or a new activation
  return l.c.b.l2_normalize(l.name, x, epsilon, y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
