// The attention scoring kernels for avx2; compiled with that instruction set's flags
// (engine/CMakeLists.txt). 16 ymm registers: weighted_sum keeps 4 vectors of sums.
#include "scoring/scoring_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<xsimd::fma3<xsimd::avx2>, 4>;

const ScoringKernelTable kTable = {"avx2", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
