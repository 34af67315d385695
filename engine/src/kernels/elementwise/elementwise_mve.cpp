// The elementwise kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "elementwise/elementwise_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<simd::MveArch>::table("mve");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
