// The kernel sets: one per instruction set of the build, each holding every kernel
// family's table. The families written once per set (FOCAL_FOR_EACH_SET_FAMILY) are all
// compiled in one translation unit with that instruction set's flags
// (dispatch/kernel_set_instance.cpp, tuned by isa/<isa>/isa_traits.hpp); the families
// compiled per instruction (the int8 and int4 GEMMs) contribute the best variant the set's
// instruction set allows (dispatch/kernel_variants.h). Which sets and variants exist comes
// from engine/CMakeLists.txt's focal_isa() lines, which generate focal_kernel_isas.h.
//
// A session runs on one set: the one SessionOptions::isa names (kernel_set_named()), or
// kBestKernels, whose families resolve to their best tables on first use (best_kernels():
// so a firmware links only the families its ops use). Tests sweep every usable set;
// benchmarks compare them. Hot loops never ask.
#pragma once

#include <cstdint>

#include "dispatch/cpu_isa.h"

namespace focal {
namespace kernels {

// The families in every kernel set, as X(TableType prefix, KernelSet field, arg): `arg`
// passes one more argument through to X (an instruction set; unused where not needed).
#define FOCAL_FOR_EACH_SET_FAMILY(X, arg)                                                   \
  X(Attention, attention, arg) X(Scoring, scoring, arg) X(Gemm, gemm, arg)                  \
  X(Normalization, normalization, arg) X(Softmax, softmax, arg)                              \
  X(Elementwise, elementwise, arg) X(Embedding, embedding, arg) X(Position, position, arg)  \
  X(Pooling, pooling, arg) X(Recurrent, recurrent, arg)
// The families compiled per instruction (dispatch/kernel_variants.h), the same way.
#define FOCAL_FOR_EACH_VARIANT_FAMILY(X, arg) X(QGemm, qgemm, arg) X(Q4Gemm, q4gemm, arg)

#define FOCAL_DECLARE_TABLE(Family, field, unused) struct Family##KernelTable;
FOCAL_FOR_EACH_SET_FAMILY(FOCAL_DECLARE_TABLE, )
FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_DECLARE_TABLE, )
#undef FOCAL_DECLARE_TABLE

// Every family's table for one instruction set. A null table (only in kBestKernels)
// stands for that family's best table.
struct KernelSet {
  const char* isa;
#define FOCAL_KERNEL_SET_FIELD(Family, field, unused) const Family##KernelTable* field;
  FOCAL_FOR_EACH_SET_FAMILY(FOCAL_KERNEL_SET_FIELD, )
  FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_KERNEL_SET_FIELD, )
#undef FOCAL_KERNEL_SET_FIELD
};

// One family's table (Table: its table type) for one instruction set, specialized for
// each family by that instruction set's compilation of dispatch/kernel_set_instance.cpp.
template <Isa kIsa, class Table>
const Table* isa_kernels();

#define FOCAL_DECLARE_ISA_FAMILY(Family, field, isa) \
  template <>                                        \
  const Family##KernelTable* isa_kernels<Isa::isa, Family##KernelTable>();
#define FOCAL_DECLARE_ISA_KERNELS(isa) FOCAL_FOR_EACH_SET_FAMILY(FOCAL_DECLARE_ISA_FAMILY, isa)
FOCAL_DECLARE_ISA_KERNELS(scalar)
FOCAL_FOR_EACH_BUILT_ISA(FOCAL_DECLARE_ISA_KERNELS)
#undef FOCAL_DECLARE_ISA_KERNELS
#undef FOCAL_DECLARE_ISA_FAMILY

// The first usable instruction set (best first), else scalar.
template <class Table>
const Table* choose_best_kernels() {
  const CpuFeatures& cpu = cpu_features();
  (void)cpu;
#define FOCAL_RETURN_IF_USABLE(isa) \
  if (cpu.isa) return isa_kernels<Isa::isa, Table>();
  FOCAL_FOR_EACH_BUILT_ISA(FOCAL_RETURN_IF_USABLE)
#undef FOCAL_RETURN_IF_USABLE
#if defined(FOCAL_HAVE_ISA_MVE)
  // Built only for cores with MVE: leaving the scalar tables unreferenced keeps them out
  // of the firmware (about 20 KiB of flash).
  return isa_kernels<Isa::mve, Table>();
#else
  return isa_kernels<Isa::scalar, Table>();
#endif
}

// A variant family's table for an instruction set: the first variant this CPU runs among
// those of `at_most` and the sets after it (dispatch/kernel_variants.h; defined by the
// family's dispatch file). Its best table is its table for the best instruction set.
template <class Table>
const Table* variant_kernels(Isa at_most);
#define FOCAL_DECLARE_VARIANT_CHOOSER(Family, field, unused)                        \
  template <>                                                                       \
  const Family##KernelTable* variant_kernels<Family##KernelTable>(Isa at_most);     \
  template <>                                                                       \
  inline const Family##KernelTable* choose_best_kernels<Family##KernelTable>() {    \
    return variant_kernels<Family##KernelTable>(kBestIsa);                          \
  }
FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_DECLARE_VARIANT_CHOOSER, )
#undef FOCAL_DECLARE_VARIANT_CHOOSER

// One family's best table on this CPU, chosen on the first call.
template <class Table>
const Table* best_kernels() {
  static const Table* const best = choose_best_kernels<Table>();
  return best;
}

// `set`'s table of a family, or that family's best table where `set` has none.
template <class Table>
const Table* kernels_of(const KernelSet& set, const Table* KernelSet::*family) {
  return set.*family != nullptr ? set.*family : best_kernels<Table>();
}

// The set whose every family is that family's best table (the default of the entry
// points that take a set, and of sessions that name no instruction set).
#define FOCAL_NULL_TABLE(Family, field, unused) nullptr,
constexpr KernelSet kBestKernels = {"best", FOCAL_FOR_EACH_SET_FAMILY(FOCAL_NULL_TABLE, )
                                                FOCAL_FOR_EACH_VARIANT_FAMILY(FOCAL_NULL_TABLE, )};
#undef FOCAL_NULL_TABLE

// Every set this build has, scalar included, fits.
constexpr int kMaxKernelSets = 8;

struct KernelSets {
  const KernelSet* sets[kMaxKernelSets];
  int count;
};

// The best set on this CPU, every family resolved (for tests and reports).
const KernelSet& best_kernel_set();

// Every set this CPU can run, scalar first, then the build's instruction sets from the
// simplest.
const KernelSets& usable_kernel_sets();

// The set of the instruction set named `name` ("avx2", "neon64", "scalar", ...; its
// variant families at the best variant that instruction set allows), or null when this
// build has no such set or this CPU cannot run it.
const KernelSet* kernel_set_named(const char* name);

}  // namespace kernels
}  // namespace focal
