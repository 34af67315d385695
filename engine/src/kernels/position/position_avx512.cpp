// The RoPE and sinusoidal encoding kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<xsimd::avx512bw>::table("avx512");

}  // namespace

const PositionKernelTable* position_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
