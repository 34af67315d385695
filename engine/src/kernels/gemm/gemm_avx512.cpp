// The GEMM kernels for AVX-512 (x86-64-v4); compiled with those flags
// (engine/CMakeLists.txt). Register tile 8 x 32, a whole panel row: 16 accumulators of
// the 32 zmm registers, 2 weight vectors, a broadcast; 16 FMAs, 2 loads and 8
// broadcasts per k, no spills (objdump). GEMV: up to 16 accumulators (at M = 1, 4
// panels x 2 vectors x 2 partial sums, one x broadcast per 8 FMAs).
#include "gemm/gemm_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = GemmKernels<xsimd::avx512bw, 8, 2, 16>;
constexpr GemmKernelTable kTable = Kernels::table<768>("avx512");

}  // namespace

const GemmKernelTable* gemm_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
