// The LSTM and GRU cell kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<xsimd::avx512bw>::table("avx512");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
