// The residual add, SwiGLU and GeGLU kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "elementwise/elementwise_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr ElementwiseKernelTable kTable = Elementwise<xsimd::avx512bw>::table("avx512");

}  // namespace

const ElementwiseKernelTable* elementwise_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
