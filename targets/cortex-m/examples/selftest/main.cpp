// Deliberately failing firmwares (registered with EXPECT_EXIT 1 / 131): they prove the ctest
// harness notices a non-zero exit and a hard fault instead of passing or hanging.
#include <cstdio>

int main() {
#if defined(SELFTEST_MODE_exit)
  std::printf("selftest: returning 1 from main\n");
  return 1;
#elif defined(SELFTEST_MODE_fault)
  std::printf("selftest: calling through a null function pointer\n");
  // Branching to an address without the Thumb bit faults (UsageFault INVSTATE, escalated
  // to HardFault because UsageFault is not enabled).
  void (*volatile function)() = nullptr;
  function();
  return 0;
#else
#error "define SELFTEST_MODE_exit or SELFTEST_MODE_fault"
#endif
}
