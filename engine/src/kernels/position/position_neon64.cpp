// The RoPE and sinusoidal encoding kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<xsimd::neon64>::table("neon64");

}  // namespace

const PositionKernelTable* position_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
