// One instruction set's kernel set: every family's kernels instantiated for IsaArch with
// the tuning of isa_traits.hpp. engine/CMakeLists.txt compiles this file once per
// instruction set, with only that instruction set's flags and its isa/<isa>/ folder on
// the include path, and names the result kernel_set_<isa> (FOCAL_KERNEL_SET_ISA).
// Everything but that one function is in an unnamed namespace: code compiled with
// AVX-512 flags must never be the copy the linker keeps for the baseline path.
#include "isa_traits.hpp"  // first: it picks the Vec<Arch> implementation

#include "attention/attention_simd.hpp"
#include "dispatch/kernel_set.h"
#include "elementwise/elementwise_simd.hpp"
#include "embedding/embedding_simd.hpp"
#include "gemm/gemm_simd.hpp"
#include "normalization/normalization_simd.hpp"
#include "pooling/pooling_simd.hpp"
#include "position/position_simd.hpp"
#include "recurrent/recurrent_simd.hpp"
#include "scoring/scoring_simd.hpp"
#include "softmax/softmax_simd.hpp"

#define FOCAL_PASTE_NAME(a, b) a##b
#define FOCAL_KERNEL_SET_FUNCTION(isa) FOCAL_PASTE_NAME(kernel_set_, isa)

namespace focal {
namespace kernels {
namespace {

void run_attention_task(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<IsaArch, kAttentionKeyVectors>::run(params, task, scratch);
}

void exp2_floats(const float* x, float* y, size_t count) { exp2_array<IsaArch>(x, y, count); }

const AttentionKernelTable kAttention = {kIsaName, run_attention_task, exp2_floats};

using ScoringKernels = Scoring<IsaArch, kScoringSumVectors>;
const ScoringKernelTable kScoring = {kIsaName, ScoringKernels::additive_scores,
                                     ScoringKernels::dot_scores, ScoringKernels::softmax,
                                     ScoringKernels::weighted_sum};

using Gemm = GemmKernels<IsaArch, kGemmTileRows, kGemmTileVectors, kGemvAccumulators>;
constexpr GemmKernelTable kGemm = Gemm::table<kGemmKBlock>(kIsaName);

constexpr NormalizationKernelTable kNormalization = Normalization<IsaArch>::table(kIsaName);
constexpr SoftmaxKernelTable kSoftmax = Softmax<IsaArch>::table(kIsaName);
constexpr ElementwiseKernelTable kElementwise = Elementwise<IsaArch>::table(kIsaName);
constexpr EmbeddingKernelTable kEmbedding = Embedding<IsaArch>::table(kIsaName);
constexpr PositionKernelTable kPosition = Position<IsaArch>::table(kIsaName);
constexpr PoolingKernelTable kPooling = Pooling<IsaArch>::table(kIsaName);
constexpr RecurrentKernelTable kRecurrent = Recurrent<IsaArch>::table(kIsaName);

const KernelSet kSet = {kIsaName,   &kAttention, &kScoring,  &kGemm,    &kNormalization,
                        &kSoftmax,  &kElementwise, &kEmbedding, &kPosition, &kPooling,
                        &kRecurrent};

}  // namespace

const KernelSet& FOCAL_KERNEL_SET_FUNCTION(FOCAL_KERNEL_SET_ISA)() { return kSet; }

}  // namespace kernels
}  // namespace focal
