// The LSTM and GRU cell kernels for avx2: 8-float ymm vectors, FMA.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<xsimd::fma3<xsimd::avx2>>::table("avx2");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
