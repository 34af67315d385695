// Whole kernel sets, for the tests that sweep every instruction set (dispatch/kernel_set.h).
#include "dispatch/kernel_set.h"

#include "attention/attention_kernels.h"

namespace focal {
namespace kernels {
namespace {

template <Isa kIsa>
const KernelSet& whole_set() {
  static const KernelSet set = {
      isa_kernels<kIsa, AttentionKernelTable>()->isa, isa_kernels<kIsa, AttentionKernelTable>(),
      isa_kernels<kIsa, ScoringKernelTable>(),        isa_kernels<kIsa, GemmKernelTable>(),
      isa_kernels<kIsa, NormalizationKernelTable>(),  isa_kernels<kIsa, SoftmaxKernelTable>(),
      isa_kernels<kIsa, ElementwiseKernelTable>(),    isa_kernels<kIsa, EmbeddingKernelTable>(),
      isa_kernels<kIsa, PositionKernelTable>(),       isa_kernels<kIsa, PoolingKernelTable>(),
      isa_kernels<kIsa, RecurrentKernelTable>()};
  return set;
}

KernelSets list_usable() {
  KernelSets list{};
  list.sets[list.count++] = &whole_set<Isa::scalar>();
  const CpuIsas& isas = usable_isas();
  (void)isas;
  const KernelSet* best_first[kMaxKernelSets] = {};
  int built = 0;
#define FOCAL_ADD_IF_USABLE(isa) \
  if (isas.isa) best_first[built++] = &whole_set<Isa::isa>();
  FOCAL_FOR_EACH_BUILT_ISA(FOCAL_ADD_IF_USABLE)
#undef FOCAL_ADD_IF_USABLE
  while (built > 0) list.sets[list.count++] = best_first[--built];
  return list;
}

}  // namespace

const KernelSet& best_kernel_set() {
  static const KernelSet best = {
      best_kernels<AttentionKernelTable>()->isa, best_kernels<AttentionKernelTable>(),
      best_kernels<ScoringKernelTable>(),        best_kernels<GemmKernelTable>(),
      best_kernels<NormalizationKernelTable>(),  best_kernels<SoftmaxKernelTable>(),
      best_kernels<ElementwiseKernelTable>(),    best_kernels<EmbeddingKernelTable>(),
      best_kernels<PositionKernelTable>(),       best_kernels<PoolingKernelTable>(),
      best_kernels<RecurrentKernelTable>()};
  return best;
}

const KernelSets& usable_kernel_sets() {
  static const KernelSets usable = list_usable();
  return usable;
}

}  // namespace kernels
}  // namespace focal
