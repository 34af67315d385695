// The layernorm, rmsnorm and l2-normalize kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<xsimd::sse2>::table("sse2");

}  // namespace

const NormalizationKernelTable* normalization_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
