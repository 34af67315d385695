// The softmax kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "simd/vec_scalar.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<simd::ScalarArch>::table("scalar");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
