// The position kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "position/position_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<simd::MveArch>::table("mve");

}  // namespace

const PositionKernelTable* position_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
