// The pooling kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "pooling/pooling_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<simd::MveArch>::table("mve");

}  // namespace

const PoolingKernelTable* pooling_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
