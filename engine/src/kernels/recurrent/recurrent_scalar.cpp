// The LSTM and GRU cell kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "recurrent/recurrent_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr RecurrentKernelTable kTable = Recurrent<simd::ScalarArch>::table("scalar");

}  // namespace

const RecurrentKernelTable* recurrent_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
