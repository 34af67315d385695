// The embedding gather kernels for sse2: 4-float xmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "embedding/embedding_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<xsimd::sse2>::table("sse2");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
