// Firmware from an installed prefix: the embedded model loads from flash, runs its stored
// self-test (PyTorch's float64 outputs) in a static arena sized by its own plan, and
// prints its outputs. Exit status 0 only if every case passes.
#include <cstdio>

#include "focal/focal.h"
#include "focal_model.h"       // focal_model[], focal_model_size (focal_embed_model)
#include "focal_model_plan.h"  // focal_model_arena_bytes (focal plan, at build time)

namespace {
alignas(64) uint8_t g_arena[focal_model_arena_bytes];
}  // namespace

int main() {
  auto model = focal::Model::from_bytes(focal_model, focal_model_size);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().message());
    return 1;
  }
  auto session = focal::Session::create(*model, focal::SessionOptions(), g_arena, sizeof(g_arena));
  if (!session.ok()) {
    std::printf("session failed: %s\n", session.status().message());
    return 1;
  }
  auto report = focal::run_self_tests(session.value());
  if (!report.ok()) {
    std::printf("self-test could not run: %s\n", report.status().message());
    return 1;
  }
  for (int i = 0; i < session->output_count(); ++i) {
    const focal::TensorView out = session->output(i);
    if (out.dtype != focal::DType::kF32) continue;
    std::printf("%s:", out.name);
    for (int64_t k = 0; k < out.shape.element_count() && k < 4; ++k) std::printf(" %.5f", static_cast<double>(out.as<float>()[k]));
    std::printf("\n");
  }
  // %lu, not %zu: newlib-nano's printf has neither %zu nor %llu.
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  std::printf("%s: arena %lu bytes, self-test %s (%d cases)\n", model->architecture(),
              static_cast<unsigned long>(sizeof(g_arena)), passed ? "PASS" : "FAIL", report->cases);
  return passed ? 0 : 1;
}
