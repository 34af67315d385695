#include "spec/spec_layers.h"

namespace focal {
namespace convert {
namespace spec {
namespace {

struct LayerKind {
  const char* kind;
  LayerFn build;
};

#define FOCAL_SPEC_LAYER_ENTRY(Name, def, spec_kind) {spec_kind, def##_layer},
constexpr LayerKind kLayerKinds[] = {FOCAL_FOR_EACH_OP(FOCAL_SPEC_LAYER_ENTRY)};
#undef FOCAL_SPEC_LAYER_ENTRY

}  // namespace

LayerFn find_layer(const std::string& kind) {
  for (const LayerKind& k : kLayerKinds) {
    if (kind == k.kind) return k.build;
  }
  return nullptr;
}

std::string layer_kinds() {
  std::string all;
  for (const LayerKind& k : kLayerKinds) all += (all.empty() ? "" : ", ") + std::string(k.kind);
  return all;
}

}  // namespace spec
}  // namespace convert
}  // namespace focal
