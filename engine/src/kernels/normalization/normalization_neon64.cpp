// The layernorm, rmsnorm and l2-normalize kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<xsimd::neon64>::table("neon64");

}  // namespace

const NormalizationKernelTable* normalization_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
