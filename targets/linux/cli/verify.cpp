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
#include "owned_session.h"

namespace focal {
namespace cli {

namespace {
const char* kUsage =
    "usage: focal verify MODEL.focal\n"
    "Runs the model's stored self-test vectors and compares the outputs with the expected\n"
    "values within the stored tolerance. Exits 0 when all pass, 1 otherwise.\n";

struct Options {
  const char* model = nullptr;
};

Status parse(int argc, char** argv, Options* o) {
  Arguments args(argc, argv);
  while (args.more()) {
    if (!args.positional(&o->model)) args.refuse_current();
  }
  if (!args.status().ok()) return args.status();
  return o->model != nullptr ? Status() : missing_argument("MODEL.focal");
}

}  // namespace

int verify_command(int argc, char** argv) {
  Options o;
  const auto loaded = start_command("verify", argc, argv, kUsage, parse, &o);
  if (!loaded) return loaded.exit_code();
  const Model& model = loaded->model;
  if (model.self_test_count() == 0) {
    std::fprintf(stderr, "focal verify: %s has no self-test vectors\n", printable(o.model).c_str());
    return 1;
  }
  OwnedSession owned;
  const Status opened = OwnedSession::open(model, SessionOptions(), &owned);
  if (!opened.ok()) {
    return report_failure("verify", opened);
  }
  auto report = run_self_tests(owned.session());
  if (!report.ok()) {
    return report_failure("verify", report.status());
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
