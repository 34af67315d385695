// The sdot loop (AArch64 FEAT_DotProd, s8 x s8 -> s32, 16 multiply-adds per q-register
// instruction); compiled with -march=armv8.2-a+dotprod, called only on a CPU whose
// hwcaps report ASIMDDP.
#include <arm_neon.h>

#include "int8_dot_loop_impl.h"

namespace focal_bench {
namespace detail {
namespace {

struct DotprodOps {
  using Acc = int32x4_t;
  static constexpr size_t kMultiplyAdds = 16;
  static Acc splat_acc(int32_t v) { return vdupq_n_s32(v); }
  static int8x16_t operand(int32_t v) { return vdupq_n_s8(static_cast<int8_t>(v)); }
  static Acc dot(Acc acc, int8x16_t x, int8x16_t y) { return vdotq_s32(acc, x, y); }
  static Acc add(Acc a, Acc b) { return vaddq_s32(a, b); }
  static int32_t lane_sum(Acc v) { return vaddvq_s32(v); }
};

}  // namespace

const Int8DotKernels* int8_dot_kernels_dotprod() { return int8_dot_table<DotprodOps>("dotprod"); }

}  // namespace detail
}  // namespace focal_bench
