// The mean and CLS pooling kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "pooling/pooling_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PoolingKernelTable kTable = Pooling<simd::ScalarArch>::table("scalar");

}  // namespace

const PoolingKernelTable* pooling_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
