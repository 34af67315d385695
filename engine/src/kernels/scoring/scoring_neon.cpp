// The attention scoring kernels for neon; compiled with that instruction set's flags
// (engine/CMakeLists.txt). 16 q registers: weighted_sum keeps 4 vectors of sums.
#include "scoring/scoring_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<xsimd::neon, 4>;

const ScoringKernelTable kTable = {"neon", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
