// The embedding kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "embedding/embedding_simd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<simd::MveArch>::table("mve");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
