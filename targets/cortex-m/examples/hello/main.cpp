// Smallest useful firmware: proves the runtime works on the chosen core. It checks that a
// static constructor ran (__libc_init_array), that printf formats floats (newlib-nano
// needs -u _printf_float), that the heap works, and returns 0 -> the ctest passes.
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

volatile unsigned constructed = 0;  // volatile: the constructor cannot be folded away

struct Probe {
  Probe() { constructed = 0x600DF00Du; }
};
Probe probe;  // dynamic initialisation: only runs if .init_array is processed

}  // namespace

int main() {
  if (constructed != 0x600DF00Du) {
    std::printf("static constructor did not run\n");
    return 2;
  }
  volatile float two = 2.0f;  // volatile: computed at run time on the target's FPU
  const float root = std::sqrt(two);
  auto* block = static_cast<float*>(std::malloc(1000 * sizeof(float)));
  if (block == nullptr) return 3;
  block[999] = root;
#if defined(__ARM_FEATURE_MVE)
  const char* simd = "MVE";
#else
  const char* simd = "no MVE";
#endif
  std::printf("hello from Cortex-M (Armv%d, %s): sqrt(2) = %.6f, pi = %.4f\n", __ARM_ARCH, simd,
              static_cast<double>(block[999]), 3.14159265);
  std::free(block);
  return std::fabs(root - 1.414214f) < 1e-5f ? 0 : 4;
}
