// The normalization kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "normalization/normalization_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<simd::MveArch>::table("mve");

}  // namespace

const NormalizationKernelTable* normalization_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
