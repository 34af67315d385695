// Internal kernel entry points trust what their callers validated (an op's load-time
// checks, the verifier, the session's sizing). Debug and fuzz builds
// (FOCAL_CHECK_TRUSTED_CALLS, engine/CMakeLists.txt) test that trust with the public
// API's own checks and trap at the first call that breaks it, so a gap between what an
// op checks and what a kernel needs shows as a crash under the fuzzers and sanitizers,
// never as a silent out-of-bounds access. Release builds check nothing here.
#pragma once

#if defined(FOCAL_CHECK_TRUSTED_CALLS)
#define FOCAL_EXPECT_VALID(status_expression)        \
  do {                                               \
    if (!(status_expression).ok()) __builtin_trap(); \
  } while (0)
#else
// Unevaluated (sizeof), so the checked names still count as used.
#define FOCAL_EXPECT_VALID(status_expression) \
  do {                                        \
    (void)sizeof((status_expression).ok());   \
  } while (0)
#endif
