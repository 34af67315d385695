// One instruction set's kernel set: every family's kernels instantiated for IsaArch with
// the tuning of isa_traits.hpp. engine/CMakeLists.txt compiles this file once per
// instruction set, with only that instruction set's flags and its isa/<isa>/ folder on
// the include path, and specializes isa_kernels<Isa::<isa>, Table> (FOCAL_KERNEL_SET_ISA) for every
// family. Everything else is in an unnamed namespace: code compiled with AVX-512 flags must never
// be the copy the linker keeps for the baseline path.
#include "attention/attention_simd.hpp"
#include "dispatch/kernel_set.h"
#include "elementwise/elementwise_simd.hpp"
#include "embedding/embedding_simd.hpp"
#include "gemm/gemm_simd.hpp"
#include "isa_traits.hpp"  // first: it picks the Vec<Arch> implementation
#include "normalization/normalization_simd.hpp"
#include "pooling/pooling_simd.hpp"
#include "position/position_simd.hpp"
#include "recurrent/recurrent_simd.hpp"
#include "scoring/scoring_simd.hpp"
#include "softmax/softmax_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_attention_task(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<IsaArch, kAttentionKeyVectors>::run(params, task, scratch);
}

void exp2_floats(const float* x, float* y, size_t count) { exp2_array<IsaArch, false>(x, y, count); }
void exp2_bounded_floats(const float* x, float* y, size_t count) {
  exp2_array<IsaArch, true>(x, y, count);
}

const AttentionKernelTable kAttention = {kIsaName, run_attention_task, exp2_floats,
                                         exp2_bounded_floats};

using ScoringKernels = Scoring<IsaArch, kScoringSumVectors>;
const ScoringKernelTable kScoring = {kIsaName, ScoringKernels::additive_scores,
                                     ScoringKernels::dot_scores, ScoringKernels::softmax,
                                     ScoringKernels::weighted_sum};

using Gemm = GemmKernels<IsaArch, kGemmTileRows, kGemmTileVectors, kGemvAccumulators>;
constexpr GemmKernelTable kGemm = Gemm::table<kGemmKBlock, FOCAL_HALF_WEIGHTS>(kIsaName);

constexpr NormalizationKernelTable kNormalization = Normalization<IsaArch>::table(kIsaName);
constexpr SoftmaxKernelTable kSoftmax = Softmax<IsaArch>::table(kIsaName);
constexpr ElementwiseKernelTable kElementwise = Elementwise<IsaArch>::table(kIsaName);
constexpr EmbeddingKernelTable kEmbedding = Embedding<IsaArch>::table(kIsaName);
constexpr PositionKernelTable kPosition = Position<IsaArch>::table(kIsaName);
constexpr PoolingKernelTable kPooling = Pooling<IsaArch>::table(kIsaName);
constexpr RecurrentKernelTable kRecurrent = Recurrent<IsaArch>::table(kIsaName);

}  // namespace

// Each family's table as this instruction set's, one function (and so one section) per
// family: a firmware's --gc-sections keeps only the families its ops use.
#define FOCAL_THIS_ISA Isa::FOCAL_KERNEL_SET_ISA
#define FOCAL_DEFINE_ISA_KERNELS(Family, field, unused)                          \
  template <>                                                                    \
  const Family##KernelTable* isa_kernels<FOCAL_THIS_ISA, Family##KernelTable>() { \
    return &k##Family;                                                           \
  }
FOCAL_FOR_EACH_SET_FAMILY(FOCAL_DEFINE_ISA_KERNELS, )
#undef FOCAL_DEFINE_ISA_KERNELS

}  // namespace kernels
}  // namespace focal
