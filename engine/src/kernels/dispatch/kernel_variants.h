// The chooser of the families compiled per instruction rather than per kernel set (the
// int8 and int4 GEMMs): a family's variants of this build, best first and scalar last,
// each with the instruction set whose focal_isa() line builds it and the CpuFeatures flag
// of its name (cpu_isa.h), which says whether this CPU runs it. The lists come from
// engine/CMakeLists.txt (FOCAL_FOR_EACH_<FAMILY>_VARIANT); nothing here knows a variant by
// name.
#pragma once

#include "dispatch/cpu_isa.h"

namespace focal {
namespace kernels {

template <class Table>
struct KernelVariant {
  const Table* table;
  Isa isa;                  // the instruction set that builds it
  bool CpuFeatures::*runs;  // this CPU's flag for the variant's name
};

// `list` ends with the scalar variant (runs: CpuFeatures::scalar, always true).
template <class Table>
bool variant_usable(const KernelVariant<Table>* list, const Table& table) {
  for (;; ++list) {
    if (list->table == &table) return cpu_features().*list->runs;
    if (list->isa == Isa::scalar) return false;
  }
}

// The first variant this CPU runs among those of `at_most` and the instruction sets after
// it (best first): at the latest the scalar one, which every CPU runs.
template <class Table>
const Table* first_usable_variant(const KernelVariant<Table>* list, Isa at_most) {
  const CpuFeatures& cpu = cpu_features();
  while (list->isa < at_most || !(cpu.*list->runs)) ++list;
  return list->table;
}

}  // namespace kernels
}  // namespace focal
