// What every consumer checks once it has a model (header-only: a consumer is one source
// file built outside the repository): a session in the caller's arena runs the self-test
// stored in the model (expected outputs from PyTorch in float64 or the converter's
// float64 reference), prints the f32 outputs of the last case and a summary line with
// "self-test PASS" or "self-test FAIL". Returns the exit status: 0 only if every case
// passes. printf formats are those newlib-nano has (no %zu, %llu).
#pragma once

#include <cstdio>

#include "focal/focal.h"

inline int run_self_test(const focal::Model& model, uint8_t* arena, size_t arena_bytes) {
  auto session = focal::Session::create(model, focal::SessionOptions(), arena, arena_bytes);
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
    std::printf("%s [", out.name);
    for (int d = 0; d < out.shape.rank; ++d) std::printf(d ? ", %ld" : "%ld", static_cast<long>(out.shape.dims[d]));
    std::printf("]:");
    const int64_t count = out.shape.element_count();
    for (int64_t k = 0; k < count && k < 8; ++k) std::printf(" %.6f", static_cast<double>(out.as<float>()[k]));
    std::printf("%s\n", count > 8 ? " ..." : "");
  }
  const bool passed = report->cases > 0 && report->failed_cases == 0;
  std::printf("%s: arena %lu bytes, self-test %s (%d cases, max abs error %.3g)\n", model.architecture(),
              static_cast<unsigned long>(arena_bytes), passed ? "PASS" : "FAIL", report->cases,
              static_cast<double>(report->max_abs_error));
  return passed ? 0 : 1;
}
