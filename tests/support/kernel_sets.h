// The kernel tables of one family across every kernel set this CPU can run (scalar
// first), for the tests that check each instruction set against the reference twin.
#pragma once

#include "dispatch/kernel_set.h"

namespace focal {
namespace testing {

// Fills `tables` (room for kernels::kMaxKernelSets) with the `family` table of every
// usable set, e.g. usable_tables(&kernels::KernelSet::gemm, tables); returns the count.
template <class Table>
int usable_tables(const Table* kernels::KernelSet::*family, const Table** tables) {
  const kernels::KernelSets& usable = kernels::usable_kernel_sets();
  for (int i = 0; i < usable.count; ++i) tables[i] = usable.sets[i]->*family;
  return usable.count;
}

}  // namespace testing
}  // namespace focal
