// focal verify MODEL: runs the self-test vectors the converter stored in the model, on
// this machine, and says whether the outputs match within the stored tolerance.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/loaded_model.h"
#include "focal/self_test.h"
#include "focal/session.h"

namespace focal {
namespace cli {

namespace {
const char* kUsage =
    "usage: focal verify MODEL.focal\n"
    "Runs the model's stored self-test vectors and compares the outputs with the expected\n"
    "values within the stored tolerance. Exits 0 when all pass, 1 otherwise.\n";

}  // namespace

int verify_command(int argc, char** argv) {
  if (printed_help(argc, argv, kUsage)) return 0;
  if (argc != 1 || argv[0][0] == '-') {
    std::fputs(kUsage, stderr);
    return 2;
  }
  const auto loaded = load_model_or_report("verify", argv[0]);
  if (!loaded) return 1;
  const Model& model = loaded->model;
  if (model.self_test_count() == 0) {
    std::fprintf(stderr, "focal verify: %s has no self-test vectors\n", argv[0]);
    return 1;
  }
  OwnedSession owned;
  const Status opened = open_session(model, SessionOptions(), &owned);
  if (!opened.ok()) {
    std::fprintf(stderr, "focal verify: %s\n", opened.message());
    return 1;
  }
  auto report = run_self_tests(*owned.session);
  if (!report.ok()) {
    std::fprintf(stderr, "focal verify: %s\n", report.status().message());
    return 1;
  }
  const bool passed = report->failed_cases == 0;
  std::printf(
      "%s: %d of %d self-test cases passed (max abs error %.3g, worst error/tolerance %.3g)\n",
      passed ? "PASS" : "FAIL", report->cases - report->failed_cases, report->cases,
      static_cast<double>(report->max_abs_error),
      static_cast<double>(report->worst_tolerance_ratio));
  return passed ? 0 : 1;
}

}  // namespace cli
}  // namespace focal
