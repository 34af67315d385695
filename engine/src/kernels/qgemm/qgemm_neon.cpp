// The int8 GEMM variant of armv7 NEON (the armhf build; Cortex-A7/A9/A15/A53 in 32-bit
// mode): the widening products of qgemm_neon_widening.hpp, 2 rows per tile (8 q-register
// accumulators of 16). Row quantization stays in plain loops: armv7 NEON has no
// round-to-nearest conversion and flushes subnormals, so only VFP gives the reference's
// bits.
#include "qgemm/qgemm_driver.hpp"
#include "qgemm/qgemm_neon_widening.hpp"

namespace focal {
namespace kernels {
namespace {

struct NeonMicro : WideningMicro<2> {
  static void quantize_rows(const QGemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<kOffset>(p, row_begin, row_end);
  }
};

constexpr QGemmKernelTable kNeonQGemm = QGemmDriver<NeonMicro>::table("neon");

}  // namespace

const QGemmKernelTable* qgemm_neon_kernels() { return &kNeonQGemm; }

}  // namespace kernels
}  // namespace focal
