// The residual add, SwiGLU and GeGLU kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
