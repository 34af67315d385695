// The softmax kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "simd/vec_xsimd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<xsimd::neon64>::table("neon64");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
