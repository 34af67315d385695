// The embedding gather kernels for avx512: 16-float zmm vectors.
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "embedding/embedding_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<xsimd::avx512bw>::table("avx512");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
