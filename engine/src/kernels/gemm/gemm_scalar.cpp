// The GEMM kernels without SIMD (Cortex-M, and the twin of the tiling elsewhere);
// engine/CMakeLists.txt builds it for every target. Register tile 4 x 4 floats: 16
// accumulators of the 32 single-precision registers of a Cortex-M4F/M7 FPU, 4 weights
// and a broadcast; GEMV: 8 sums. K blocks of 256.
#include "gemm/gemm_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<simd::ScalarArch, 4, 4, 8>;
constexpr GemmKernelTable kTable = Kernels::table<256>("scalar");

}  // namespace

const GemmKernelTable* gemm_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
