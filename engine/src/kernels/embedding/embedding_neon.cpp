// The embedding gather kernels for neon: 4-float q registers (ARMv7 NEON, VFPv4 FMA).
// Compiled with that instruction set's flags (engine/CMakeLists.txt).
#include "embedding/embedding_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

constexpr EmbeddingKernelTable kTable = Embedding<xsimd::neon>::table("neon");

}  // namespace

const EmbeddingKernelTable* embedding_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
