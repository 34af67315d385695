// The RoPE and sinusoidal encoding kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<xsimd::neon>::table("neon");

}  // namespace

const PositionKernelTable* position_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
