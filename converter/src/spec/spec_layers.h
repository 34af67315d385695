// The spec's layer kinds: one per op kind, named and listed in focal/internal/op_kinds.h
// ({"op": "<spec kind>"}), each built by `<def>_layer` in spec/layers/. A layer returns
// the tensor its output names (and may define more, such as a final state).
#pragma once

#include <string>
#include <utility>

#include "focal/internal/op_kinds.h"
#include "spec/spec_context.h"

namespace focal {
namespace convert {
namespace spec {

using LayerFn = Result<int> (*)(const Layer& layer);

#define FOCAL_DECLARE_SPEC_LAYER(Name, def, spec_kind) Result<int> def##_layer(const Layer& layer);
FOCAL_FOR_EACH_OP(FOCAL_DECLARE_SPEC_LAYER)
#undef FOCAL_DECLARE_SPEC_LAYER

// The one path of a layer whose op has one input and one output of its dims (Scale,
// L2Normalize): the output its "output" names (a declared state, or a new activation),
// written with `options` (fb::<Kind>OptionsT) through GraphBuilder::elementwise. The
// layer reads its fields into the options and leaves judging them to the engine op's
// load-time check, whose error names the layer (its op takes the layer's name).
template <class KindOptionsT>
Result<int> elementwise_layer(const Layer& l, int x, KindOptionsT options) {
  FOCAL_SPEC_ASSIGN(const int y, l.output_tensor(l.c.b.dims(x)));
  return l.c.b.elementwise(l.name, std::move(options), x, y);
}

// The builder of layer kind `kind`; null for a kind that is not one.
LayerFn find_layer(const std::string& kind);
// Every kind, comma-separated, for the message naming an unknown one.
std::string layer_kinds();

}  // namespace spec
}  // namespace convert
}  // namespace focal
