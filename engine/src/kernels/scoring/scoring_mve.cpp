// The scoring kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "scoring/scoring_simd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<simd::MveArch, 4>;

const ScoringKernelTable kTable = {"mve", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
