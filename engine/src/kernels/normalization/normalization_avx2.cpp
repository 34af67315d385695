// The layernorm, rmsnorm and l2-normalize kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "normalization/normalization_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr NormalizationKernelTable kTable = Normalization<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const NormalizationKernelTable* normalization_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
