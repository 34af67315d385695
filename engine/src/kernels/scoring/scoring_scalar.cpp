// The attention scoring kernels for scalar; compiled with that instruction set's flags
// (engine/CMakeLists.txt). No SIMD (Cortex-M, and the twin of the loop structure itself).
#include "scoring/scoring_simd.hpp"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<simd::ScalarArch, 4>;

const ScoringKernelTable kTable = {"scalar", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
