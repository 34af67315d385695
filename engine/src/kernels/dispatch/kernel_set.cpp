// Whole kernel sets: for the tests that sweep every instruction set and for sessions that
// name one (dispatch/kernel_set.h).
#include "dispatch/kernel_set.h"

#include <cstring>

#include "attention/attention_kernels.h"

namespace focal {
namespace kernels {
namespace {

template <Isa kIsa>
const KernelSet& whole_set() {
#define FOCAL_SET_TABLE(Family, field, unused) isa_kernels<kIsa, Family##KernelTable>(),
#define FOCAL_VARIANT_TABLE(Family, field, unused) variant_kernels<Family##KernelTable>(kIsa),
  static const KernelSet set = {isa_kernels<kIsa, AttentionKernelTable>()->isa,
                                FOCAL_FOR_EACH_SET_FAMILY(FOCAL_SET_TABLE, )
                                FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_VARIANT_TABLE, )};
#undef FOCAL_VARIANT_TABLE
#undef FOCAL_SET_TABLE
  return set;
}

KernelSets list_usable() {
  KernelSets list{};
  list.sets[list.count++] = &whole_set<Isa::scalar>();
  const CpuFeatures& cpu = cpu_features();
  (void)cpu;
  const KernelSet* best_first[kMaxKernelSets] = {};
  int built = 0;
#define FOCAL_ADD_IF_USABLE(isa) \
  if (cpu.isa) best_first[built++] = &whole_set<Isa::isa>();
  FOCAL_FOR_EACH_BUILT_ISA(FOCAL_ADD_IF_USABLE)
#undef FOCAL_ADD_IF_USABLE
  while (built > 0) list.sets[list.count++] = best_first[--built];
  return list;
}

}  // namespace

const KernelSet& best_kernel_set() {
#define FOCAL_BEST_TABLE(Family, field, unused) best_kernels<Family##KernelTable>(),
  static const KernelSet best = {best_kernels<AttentionKernelTable>()->isa,
                                 FOCAL_FOR_EACH_SET_FAMILY(FOCAL_BEST_TABLE, )
                                 FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_BEST_TABLE, )};
#undef FOCAL_BEST_TABLE
  return best;
}

const KernelSets& usable_kernel_sets() {
  static const KernelSets usable = list_usable();
  return usable;
}

// The one place a name meets the list: a session's option, once, at creation.
const KernelSet* kernel_set_named(const char* name) {
  const KernelSets& usable = usable_kernel_sets();
  for (int i = 0; i < usable.count; ++i) {
    if (std::strcmp(usable.sets[i]->isa, name) == 0) return usable.sets[i];
  }
  return nullptr;
}

}  // namespace kernels
}  // namespace focal
