// The softmax kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<simd::MveArch>::table("mve");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
