// Minimal deployment of a converted model on a Cortex-M: the .focal file sits in flash
// (focal_embed_model), the arena is a static array sized at compile time by the model's
// own plan (focal_embed_model(... PLAN) -> focal_model_plan.h), and only the ops it uses
// are linked (focal_select_ops). It classifies one token sequence, printing the outputs
// and the cycles per inference, then checks the model's stored self-test (PyTorch's
// float64 outputs, or a static int8 model's own) and reports the RAM it used.
// targets/cortex-m/README.md walks through it.
#include <cstdio>
#include <cstring>

#include "cycle_counter.h"
#include "focal/focal.h"
#include "memory_usage.h"
#include "focal_model.h"       // the embedded file: focal_model[], focal_model_size
#include "focal_model_plan.h"  // focal_model_arena_bytes: from `focal plan` at build time

namespace {

namespace cm = focal::cortex_m;

// Activations, states and op workspaces: all the memory the engine uses, no heap.
alignas(64) uint8_t g_arena[focal_model_arena_bytes];

// One right-padded sequence, as a tokenizer would give it: 10 ids, then padding.
constexpr int kSequence = 12;
const int32_t kInputIds[kSequence] = {7, 31, 2, 18, 44, 9, 23, 5, 40, 11, 0, 0};
const int32_t kAttentionMask[kSequence] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0};
constexpr int kRuns = 5;

void print_ids(const char* name, const int32_t* ids) {
  std::printf("  %s [1, %d]:", name, kSequence);
  for (int i = 0; i < kSequence; ++i) std::printf(" %ld", static_cast<long>(ids[i]));
  std::printf("\n");
}

bool set_inputs(focal::Session& session) {
  const focal::Shape shape = {2, {1, kSequence}};
  const struct {
    const char* name;
    const int32_t* values;
  } inputs[] = {{"input_ids", kInputIds}, {"attention_mask", kAttentionMask}};
  for (const auto& input : inputs) {
    const int index = session.find_input(input.name);
    const focal::Status set =
        index < 0 ? focal::Status::error(focal::StatusCode::kInvalidArgument, "the model has no input '%s'", input.name)
                  : session.set_input(index, shape, input.values, sizeof(int32_t) * kSequence);
    if (!set.ok()) {
      std::printf("input %s: %s\n", input.name, set.message());
      return false;
    }
  }
  return true;
}

void print_output(const focal::TensorView& out) {
  const int64_t count = out.shape.element_count();
  std::printf("  %s [", out.name);
  for (int d = 0; d < out.shape.rank; ++d) std::printf(d ? ", %ld" : "%ld", static_cast<long>(out.shape.dims[d]));
  std::printf("]:");
  for (int64_t i = 0; i < count && i < 12; ++i) std::printf(" %.5f", static_cast<double>(out.as<float>()[i]));
  std::printf("%s\n", count > 12 ? " ..." : "");
}

// Runs the model kRuns times; prints the outputs and the fastest run's cycles.
bool classify(focal::Session& session) {
  const cm::CycleSource source = cm::start_cycle_counter();
  uint64_t best = ~uint64_t(0);
  for (int run = 0; run < kRuns; ++run) {
    // Every run consumes its inputs (the arena reuses their bytes once read).
    if (!set_inputs(session)) return false;
    const uint64_t start = cm::cycle_count();
    const focal::Status status = session.run();
    const uint64_t cycles = cm::cycle_count() - start;
    if (!status.ok()) {
      std::printf("run failed: %s\n", status.message());
      return false;
    }
    if (cycles < best) best = cycles;
  }
  // The same lines as `focal run` would need to reproduce them on the host
  // (compare_with_host.py does, in ctest).
  print_ids("input_ids", kInputIds);
  print_ids("attention_mask", kAttentionMask);
  for (int i = 0; i < session.output_count(); ++i) print_output(session.output(i));
  // %lu: newlib-nano's printf has no long long.
  // On hardware both sources count core cycles; under qemu (no DWT) SysTick runs on the
  // emulator's virtual clock (cycle_counter.h), so the figure compares runs, not chips.
  std::printf("inference: %lu cycles by %s (best of %d)\n", static_cast<unsigned long>(best),
              cm::cycle_source_name(source), kRuns);
  return true;
}

// The stored self-test holds PyTorch's float64 outputs, or, for a model on static int8
// activations (`focal convert --quantize static`), the int8 model's own, bit for bit.
bool self_test(const focal::Model& model, focal::Session& session) {
  const auto report = focal::run_self_tests(session);
  if (!report.ok()) {
    std::printf("self-test could not run: %s\n", report.status().message());
    return false;
  }
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  const char* quantization = model.hyperparameter("quantization");
  const bool static_int8 = quantization != nullptr && std::strncmp(quantization, "static int8", 11) == 0;
  std::printf("self-test against %s: %s, max abs error %.4f, worst %.3f of tolerance\n",
              static_int8 ? "its own int8 outputs (bit for bit)" : "PyTorch (float64)", passed ? "PASS" : "FAIL",
              static_cast<double>(report->max_abs_error), static_cast<double>(report->worst_tolerance_ratio));
  return passed;
}

// RAM actually used, and the stack against its reservation: M4 and M7 cannot trap an
// overflow, and the measurement cannot see past the reservation, so it must keep a margin.
bool report_memory() {
  constexpr unsigned long kStackMargin = 512;
  const unsigned long statics = cm::static_ram_bytes(), heap = cm::heap_peak_bytes();
  const unsigned long stack = cm::stack_peak_bytes(), reserved = cm::stack_reserved_bytes();
  std::printf("RAM: %lu bytes = static %lu (arena %lu) + heap peak %lu + stack peak %lu (of %lu reserved)\n",
              statics + heap + stack, statics, static_cast<unsigned long>(sizeof(g_arena)), heap, stack, reserved);
  if (stack + kStackMargin > reserved) {
    std::printf("stack: %lu of %lu bytes used, less than %lu to spare: raise STACK_SIZE\n", stack, reserved,
                kStackMargin);
    return false;
  }
  return true;
}

}  // namespace

int main() {
  auto model = focal::Model::from_bytes(focal_model, focal_model_size);
  if (!model.ok()) {
    std::printf("load failed: %s\n", model.status().message());
    return 1;
  }
  std::printf("model: %s, %lu parameters, %d ops, %lu bytes in flash, arena %lu bytes (compile time)\n",
              model->architecture(), static_cast<unsigned long>(model->parameter_count()), model->op_count(),
              focal_model_size, focal_model_arena_bytes);
  auto session = focal::Session::create(*model, focal::SessionOptions(), g_arena, sizeof(g_arena));
  if (!session.ok()) {
    std::printf("session failed: %s\n", session.status().message());
    return 1;
  }
  const bool ok = classify(*session) && self_test(*model, *session);
  const bool memory_ok = report_memory();
  if (!ok || !memory_ok) return 1;
  // The test's pattern (targets/cortex-m/CMakeLists.txt): ctest ignores the exit status of
  // a test that has one, so the last line says that every check above passed.
  std::printf("example: all PASS\n");
  return 0;
}
