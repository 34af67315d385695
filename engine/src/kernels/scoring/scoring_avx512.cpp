// The attention scoring kernels for avx512; compiled with that instruction set's flags
// (engine/CMakeLists.txt). 32 zmm registers: weighted_sum keeps 8 vectors of sums.
#include "scoring/scoring_simd.hpp"
#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {

using Kernels = Scoring<xsimd::avx512bw, 8>;

const ScoringKernelTable kTable = {"avx512", Kernels::additive_scores, Kernels::dot_scores,
                                   Kernels::softmax, Kernels::weighted_sum};

}  // namespace

const ScoringKernelTable* scoring_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
