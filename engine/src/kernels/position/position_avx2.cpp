// The RoPE and sinusoidal encoding kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const PositionKernelTable* position_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
