// The kernel tests (tests/test_gemm.cpp, test_attention.cpp, test_scoring.cpp,
// test_pointwise_*.cpp), test_vec_math.cpp and test_format_message.cpp as firmware:
// every kernel table the core can run (scalar, and MVE on the Cortex-M55) against the
// scalar twin and the double-precision references, on the device under qemu-system-arm.
// doctest prints through newlib and semihosting; the exit status is doctest's (0 when
// every check passed).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

int main() {
  doctest::Context context;
  return context.run();
}
