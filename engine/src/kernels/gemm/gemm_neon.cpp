// The GEMM kernels for ARMv7 NEON (-mfpu=neon-vfpv4, from the armhf toolchain);
// compiled with that instruction set's flags (engine/CMakeLists.txt). Register tile
// 4 x 8 (a quarter panel row): 8 accumulators of the 16 q registers, 2 weight vectors,
// a broadcast; GEMV: 8 accumulators.
#include "gemm/gemm_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<xsimd::neon, 4, 2, 8>;
constexpr GemmKernelTable kTable = Kernels::table<512>("neon");

}  // namespace

const GemmKernelTable* gemm_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
