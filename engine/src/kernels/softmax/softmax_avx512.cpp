// The softmax kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "simd/vec_xsimd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<xsimd::avx512bw>::table("avx512");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
