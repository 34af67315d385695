// The mean and CLS pooling kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const PoolingKernelTable* pooling_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
