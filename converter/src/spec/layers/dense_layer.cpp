// {"op": "dense"}: y = x W^T + b, then an activation (schema/focal.fbs DenseOptions).
#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {

Result<int> dense_layer(const Layer& l) {
  FOCAL_SPEC_ASSIGN(const int x, l.tensor("input"));
  FOCAL_SPEC_ASSIGN(const int64_t in, l.width(x));
  const json& weight_ref = l.fields.at("weight");
  const std::string weight = weight_ref.is_object() ? l.name + ".weight" : weight_ref.get<std::string>();
  FOCAL_SPEC_ASSIGN(const Matrix w, l.dense_weight(weight_ref, in));
  FOCAL_SPEC_ASSIGN(const fb::Activation act, l.activation(l.text_or("activation", "none")));
  // The weight's constant before the bias's: tensors are numbered (and laid out) in the
  // order they are made.
  const int weight_tensor = l.c.b.constant(weight, w);
  std::vector<GraphBuilder::Dim> dims = l.c.b.dims(x);
  dims.back() = {w.shape[0], -1};
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(dims));
  return l.c.b.dense(l.name, x, weight_tensor, l.bias("bias", w.shape[0]), act, y);
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
