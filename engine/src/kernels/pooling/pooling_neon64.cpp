// The mean and CLS pooling kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<xsimd::neon64>::table("neon64");

}  // namespace

const PoolingKernelTable* pooling_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
