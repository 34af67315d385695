// The LSTM and GRU cell kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<xsimd::neon64>::table("neon64");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
