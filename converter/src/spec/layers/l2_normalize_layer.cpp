// {"op": "l2_normalize"}: y = x / max(||x||_2 over the last axis, epsilon), PyTorch's
// F.normalize(x, dim=-1) (schema/focal.fbs L2NormalizeOptions; epsilon defaults to
// F.normalize's 1e-12). The engine op's check refuses an epsilon that is not positive
// and finite, naming the layer.
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> l2_normalize_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  fb::L2NormalizeOptionsT options;
  options.epsilon = l.fields.value("epsilon", options.epsilon);
  return elementwise_layer(l, x, options);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
