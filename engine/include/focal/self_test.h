// Runs the self-test vectors stored in a model file on this device: the inputs go in,
// and every output must match the expected values within the file's tolerance.
#pragma once

#include "focal/session.h"
#include "focal/status.h"

namespace focal {

struct SelfTestReport {
  int cases = 0;
  int failed_cases = 0;
  float max_abs_error = 0.0f;
  // Worst element relative to its tolerance: error / (atol + rtol * |expected|);
  // above 1 means out of tolerance.
  float worst_tolerance_ratio = 0.0f;
};

// An error status means the test could not run (bad vectors); a report with
// failed_cases > 0 means it ran and the outputs disagreed. Each case starts from an
// empty KV cache (the session's state is reset) and runs every stage.
Result<SelfTestReport> run_self_tests(Session& session);

}  // namespace focal
