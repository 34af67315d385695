// The layernorm, rmsnorm and l2-normalize kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4
// FMA). Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<xsimd::neon>::table("neon");

}  // namespace

const NormalizationKernelTable* normalization_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
