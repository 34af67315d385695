// The GEMM kernels for AVX2 + FMA3 + F16C; compiled with those flags
// (engine/CMakeLists.txt). Register tile 6 x 16 (half a panel row): 12 accumulators of
// the 16 ymm registers, 2 weight vectors, a broadcast; GEMV: up to 12 accumulators (one
// x broadcast feeds 2 panels at M = 1).
#include "gemm/gemm_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<xsimd::fma3<xsimd::avx2>, 6, 2, 12>;
constexpr GemmKernelTable kTable = Kernels::table<768>("avx2");

}  // namespace

const GemmKernelTable* gemm_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
