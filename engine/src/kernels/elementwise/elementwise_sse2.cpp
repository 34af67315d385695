// The residual add, SwiGLU and GeGLU kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<xsimd::sse2>::table("sse2");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
