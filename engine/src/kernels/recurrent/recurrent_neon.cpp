// The LSTM and GRU cell kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<xsimd::neon>::table("neon");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
