// The attention scoring kernels for sse2; compiled with that instruction set's flags
// (engine/CMakeLists.txt). 16 xmm registers: weighted_sum keeps 4 vectors of sums.
#include "scoring/scoring_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<xsimd::sse2, 4>;

const ScoringKernelTable kTable = {"sse2", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
