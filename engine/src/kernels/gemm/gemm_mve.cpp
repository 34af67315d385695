// The GEMM kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers, of which
// MVE has 8. Register tile 2 x 8: 4 accumulators and 2 weight vectors, the rows'
// values broadcast from core registers; GEMV: 4 accumulators. The tile had the fewest
// instructions on both Cortex-M example models under qemu -icount among 1 to 6 rows by
// 1 to 4 vectors (4 x 4: 6% and 9% more; 2 x 16: 15% and 25% more). Compiled
// only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "gemm/gemm_simd.hpp"
#include "simd/vec_mve.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<simd::MveArch, 2, 2, 4>;
constexpr GemmKernelTable kTable = Kernels::table<256>("mve");

}  // namespace

const GemmKernelTable* gemm_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
