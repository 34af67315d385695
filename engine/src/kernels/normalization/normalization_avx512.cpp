// The layernorm, rmsnorm and l2-normalize kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<xsimd::avx512bw>::table("avx512");

}  // namespace

const NormalizationKernelTable* normalization_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
