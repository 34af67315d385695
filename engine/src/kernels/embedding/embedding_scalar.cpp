// The embedding gather kernels without SIMD (Cortex-M, and the
// twin of the vector loops); baseline flags, every target (engine/CMakeLists.txt).
#include "embedding/embedding_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<simd::ScalarArch>::table("scalar");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
