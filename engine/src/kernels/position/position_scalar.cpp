// The RoPE and sinusoidal encoding kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "position/position_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr PositionKernelTable kTable = Position<simd::ScalarArch>::table("scalar");

}  // namespace

const PositionKernelTable* position_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
