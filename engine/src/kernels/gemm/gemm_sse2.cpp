// The GEMM kernels for SSE2; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile 4 x 8 (a quarter panel row): 8 accumulators of
// the 16 xmm registers, 2 weight vectors, a broadcast and a product temporary (no FMA);
// GEMV: 8 accumulators. No F16C here: f16 weights convert lane by lane.
#include "gemm/gemm_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<xsimd::sse2, 4, 2, 8>;
constexpr GemmKernelTable kTable = Kernels::table<768>("sse2");

}  // namespace

const GemmKernelTable* gemm_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
