// The embedding gather kernels for neon64: 4-float q registers (AArch64).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "embedding/embedding_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<xsimd::neon64>::table("neon64");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
