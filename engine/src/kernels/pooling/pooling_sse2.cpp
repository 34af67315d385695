// The mean and CLS pooling kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<xsimd::sse2>::table("sse2");

}  // namespace

const PoolingKernelTable* pooling_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
