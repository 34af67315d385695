// The softmax kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "simd/vec_xsimd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<xsimd::sse2>::table("sse2");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
