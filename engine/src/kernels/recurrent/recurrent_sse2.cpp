// The LSTM and GRU cell kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<xsimd::sse2>::table("sse2");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
