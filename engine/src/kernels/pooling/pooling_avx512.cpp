// The mean and CLS pooling kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<xsimd::avx512bw>::table("avx512");

}  // namespace

const PoolingKernelTable* pooling_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
