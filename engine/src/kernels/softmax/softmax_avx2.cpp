// The softmax kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "simd/vec_xsimd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
