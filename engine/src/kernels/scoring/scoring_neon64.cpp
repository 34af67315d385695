// The attention scoring kernels for neon64; compiled with that instruction set's flags
// (engine/CMakeLists.txt). 32 q registers: weighted_sum keeps 8 vectors of sums.
#include "scoring/scoring_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<xsimd::neon64, 8>;

const ScoringKernelTable kTable = {"neon64", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
