// Choosing among the kernel sets of the build (dispatch/kernel_set.h).
#include "dispatch/kernel_set.h"

#include "dispatch/cpu_isa.h"

namespace focal {
namespace kernels {
namespace {

const KernelSet& choose_best() {
  const CpuIsas& isas = usable_isas();
  (void)isas;
#define FOCAL_RETURN_IF_USABLE(isa) \
  if (isas.isa) return kernel_set_##isa();
  FOCAL_FOR_EACH_BUILT_ISA(FOCAL_RETURN_IF_USABLE)
#undef FOCAL_RETURN_IF_USABLE
#if defined(FOCAL_HAVE_ISA_MVE)
  // Built only for cores with MVE: leaving the scalar set unreferenced here keeps it out
  // of the firmware (about 20 KiB of flash), as only tests ask for every set.
  return kernel_set_mve();
#else
  return kernel_set_scalar();
#endif
}

KernelSets list_usable() {
  KernelSets list{};
  list.sets[list.count++] = &kernel_set_scalar();
  const CpuIsas& isas = usable_isas();
  (void)isas;
  const KernelSet* best_first[kMaxKernelSets] = {};
  int built = 0;
#define FOCAL_ADD_IF_USABLE(isa) \
  if (isas.isa) best_first[built++] = &kernel_set_##isa();
  FOCAL_FOR_EACH_BUILT_ISA(FOCAL_ADD_IF_USABLE)
#undef FOCAL_ADD_IF_USABLE
  while (built > 0) list.sets[list.count++] = best_first[--built];
  return list;
}

}  // namespace

const KernelSet& best_kernel_set() {
  static const KernelSet& best = choose_best();
  return best;
}

const KernelSets& usable_kernel_sets() {
  static const KernelSets usable = list_usable();
  return usable;
}

}  // namespace kernels
}  // namespace focal
