// The softmax kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "simd/vec_xsimd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr SoftmaxKernelTable kTable = Softmax<xsimd::neon>::table("neon");

}  // namespace

const SoftmaxKernelTable* softmax_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
