// The layernorm, rmsnorm and l2-normalize kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<simd::ScalarArch>::table("scalar");

}  // namespace

const NormalizationKernelTable* normalization_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
