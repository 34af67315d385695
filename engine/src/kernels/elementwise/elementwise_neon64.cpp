// The residual add, SwiGLU and GeGLU kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<xsimd::neon64>::table("neon64");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
