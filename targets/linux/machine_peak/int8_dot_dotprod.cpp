// The sdot loop (AArch64 FEAT_DotProd, s8 x s8 -> s32, 16 multiply-adds per q-register
// instruction); compiled with -march=armv8.2-a+dotprod, called only on a CPU whose
// hwcaps report ASIMDDP. 16 named accumulators of the 32 vector registers.
#include <arm_neon.h>

#include "int8_dot_kernels.h"

#define FOCAL_BENCH_ACC16(X) \
  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15)
#define FOCAL_BENCH_DECLARE(i) int32x4_t a##i = vdupq_n_s32(seed + (i));
#define FOCAL_BENCH_STEP(i) a##i = vdotq_s32(a##i, x, y);
#define FOCAL_BENCH_PLUS(i) total = vaddq_s32(total, a##i);

namespace focal_bench {
namespace detail {
namespace {

// The operands come from the seed, so the compiler cannot fold the products.
int32_t sdot_loop(size_t iterations, int32_t seed) {
  const int8x16_t x = vdupq_n_s8(static_cast<int8_t>(1 + (seed & 3)));
  const int8x16_t y = vdupq_n_s8(static_cast<int8_t>(-1 - (seed & 3)));
  FOCAL_BENCH_ACC16(FOCAL_BENCH_DECLARE)
  for (size_t it = 0; it < iterations; ++it) {
    FOCAL_BENCH_ACC16(FOCAL_BENCH_STEP)
  }
  int32x4_t total = vdupq_n_s32(0);
  FOCAL_BENCH_ACC16(FOCAL_BENCH_PLUS)
  return vaddvq_s32(total);
}

}  // namespace

const Int8DotKernels* int8_dot_kernels_dotprod() {
  static const Int8DotKernels kernels = {"dotprod", 16 * 16 * 2, &sdot_loop};
  return &kernels;
}

}  // namespace detail
}  // namespace focal_bench
