// Firmware from an installed prefix: the embedded model loads from flash, runs its stored
// self-test (PyTorch's float64 outputs) in a static arena sized by its own plan
// (run_self_test.h). Exit status 0 only if every case passes.
#include <cstdio>

#include "focal/focal.h"
#include "focal_model.h"       // focal_model[], focal_model_size (focal_embed_model)
#include "focal_model_plan.h"  // focal_model_arena_bytes (focal plan, at build time)
#include "../run_self_test.h"

namespace {
alignas(64) uint8_t g_arena[focal_model_arena_bytes];
}  // namespace

int main() {
  auto model = focal::Model::from_bytes(focal_model, focal_model_size);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().message());
    return 1;
  }
  return run_self_test(*model, g_arena, sizeof(g_arena));
}
