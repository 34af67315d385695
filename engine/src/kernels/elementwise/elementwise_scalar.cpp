// The residual add, SwiGLU and GeGLU kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<simd::ScalarArch>::table("scalar");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
