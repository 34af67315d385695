// The residual add, SwiGLU and GeGLU kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<xsimd::neon>::table("neon");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
