// Runs the tiny model from flash on a Cortex-M: load and verify it in place, create a
// session over a static arena sized at build time (and check the device agrees), run
// the self-test vectors (expected outputs computed in double precision on the host),
// print the outputs, and prove a corrupted copy is refused, and an f16-weight copy too
// where the engine is built without f16 weights (FOCAL_HALF_WEIGHTS, the bare-metal default).
#include <cstdio>
#include <cstring>

#include "focal/focal.h"
#include "focal/gemm.h"
#include "focal_tiny_f16_model.h"
#include "focal_tiny_model.h"
#include "focal_tiny_model_plan.h"

namespace {

// Sized at build time by the model's own plan (focal plan): activations plus the
// attention kernel's scratch.
alignas(64) uint8_t g_arena[focal_tiny_model_arena_bytes];
alignas(64) uint8_t g_corrupt_copy[16384];

void print_output(const focal::Session& session, int index) {
  const focal::TensorView out = session.output(index);
  std::printf("%s [%d, %d, %d]:", out.name, static_cast<int>(out.shape.dims[0]),
              static_cast<int>(out.shape.dims[1]), static_cast<int>(out.shape.dims[2]));
  const int64_t count = out.shape.element_count();
  for (int64_t i = 0; i < count && i < 10; ++i)
    std::printf(" %.6f", static_cast<double>(out.as<float>()[i]));
  std::printf("%s\n", count > 10 ? " ..." : "");
}

bool corrupted_copy_is_refused() {
  if (focal_tiny_model_size > sizeof(g_corrupt_copy)) {
    std::printf("corrupted copy: the model (%lu bytes) does not fit the copy buffer\n", focal_tiny_model_size);
    return false;
  }
  std::memcpy(g_corrupt_copy, focal_tiny_model, focal_tiny_model_size);
  g_corrupt_copy[focal_tiny_model_size / 2] ^= 0x5A;
  auto model = focal::Model::from_bytes(g_corrupt_copy, focal_tiny_model_size);
  std::printf("corrupted copy: %s\n", model.ok() ? "LOADED (wrong)" : model.status().message());
  return !model.ok();
}

// Loads where this engine runs f16 weights; otherwise refused at load with kUnsupported
// and a message naming the build option, before anything could run it.
bool f16_weights_handled() {
  auto model = focal::Model::from_bytes(focal_tiny_f16_model, focal_tiny_f16_model_size);
  std::printf("f16-weight copy: %s\n", model.ok() ? "loaded" : model.status().message());
  if (focal::gemm_weights_built(focal::DType::kF16)) return model.ok();
  return !model.ok() && model.status().code() == focal::StatusCode::kUnsupported &&
         std::strstr(model.status().message(), "FOCAL_HALF_WEIGHTS") != nullptr;
}

}  // namespace

int main() {
  auto model = focal::Model::from_bytes(focal_tiny_model, focal_tiny_model_size);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().message());
    return 1;
  }
  // %lu, not %llu: newlib-nano's printf has no long long.
  const auto needed = focal::Session::required_arena_bytes(*model, focal::SessionOptions());
  std::printf("model: %s, %d ops, %lu parameters, arena %lu bytes (activations %lu)\n",
              model->architecture(), model->op_count(),
              static_cast<unsigned long>(model->parameter_count()),
              static_cast<unsigned long>(needed.ok() ? needed.value() : 0),
              static_cast<unsigned long>(model->arena_bytes()));
  // The host's plan (focal plan, compiled in) must be the device's: sizes do not depend
  // on the CPU, or firmware arenas sized at build time could not be trusted.
  if (!needed.ok() || needed.value() != focal_tiny_model_arena_bytes) {
    std::printf("arena: the device needs %lu bytes, the build-time plan says %lu\n",
                static_cast<unsigned long>(needed.ok() ? needed.value() : 0), focal_tiny_model_arena_bytes);
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
  for (int i = 0; i < session->output_count(); ++i) print_output(session.value(), i);
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  std::printf("self-test: %s (%d cases, max abs error %.3g, worst error/tolerance %.3g)\n",
              passed ? "PASS" : "FAIL", report->cases, static_cast<double>(report->max_abs_error),
              static_cast<double>(report->worst_tolerance_ratio));
  // Each check runs and prints; the test's pattern is the last line, printed only when all pass.
  const bool corrupted_refused = corrupted_copy_is_refused();
  const bool f16_handled = f16_weights_handled();
  if (!passed || !corrupted_refused || !f16_handled) return 1;
  std::printf("tiny model: all PASS\n");
  return 0;
}
