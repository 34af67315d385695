// The mean and CLS pooling kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<xsimd::neon>::table("neon");

}  // namespace

const PoolingKernelTable* pooling_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
