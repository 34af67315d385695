// The GEMM kernels for AArch64 NEON; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile 8 x 8 (a quarter panel row): 16 accumulators of
// the 32 q registers, 2 weight vectors, broadcasts; GEMV: up to 16 accumulators. K
// blocks of 512 (16 KiB of x rows and 16 KiB of a panel part: within a 64 KiB L1).
#include "gemm/gemm_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<xsimd::neon64, 8, 2, 16>;
constexpr GemmKernelTable kTable = Kernels::table<512>("neon64");

}  // namespace

const GemmKernelTable* gemm_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
