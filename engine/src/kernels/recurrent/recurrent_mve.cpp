// The recurrent kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "recurrent/recurrent_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<simd::MveArch>::table("mve");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
