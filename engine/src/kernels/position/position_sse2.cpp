// The RoPE and sinusoidal encoding kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<xsimd::sse2>::table("sse2");

}  // namespace

const PositionKernelTable* position_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
