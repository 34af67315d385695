// The kernel sets: one per instruction set of the build, each holding every kernel
// family's table (engine/src/kernels/<family>/<family>_kernels.h), all compiled in one
// translation unit with that instruction set's flags (dispatch/kernel_set_instance.cpp,
// tuned by isa/<isa>/isa_traits.hpp). Which sets exist comes from one list, FOCAL_ISAS
// in engine/CMakeLists.txt, which generates focal_kernel_isas.h.
//
// Ops and the public kernel API take each family's best table (best_kernels<Table>(),
// chosen once per family, so a firmware links only the families its ops use); tests
// sweep every usable set; benchmarks compare them. Hot loops never ask.
#pragma once

#include <cstdint>

#include "dispatch/cpu_isa.h"
#include "focal_kernel_isas.h"

namespace focal {
namespace kernels {

struct AttentionKernelTable;
struct ScoringKernelTable;
struct GemmKernelTable;
struct NormalizationKernelTable;
struct SoftmaxKernelTable;
struct ElementwiseKernelTable;
struct EmbeddingKernelTable;
struct PositionKernelTable;
struct PoolingKernelTable;
struct RecurrentKernelTable;

// Every family's table for one instruction set. A null table (only in kBestKernels)
// stands for that family's best table.
struct KernelSet {
  const char* isa;
  const AttentionKernelTable* attention;
  const ScoringKernelTable* scoring;
  const GemmKernelTable* gemm;
  const NormalizationKernelTable* normalization;
  const SoftmaxKernelTable* softmax;
  const ElementwiseKernelTable* elementwise;
  const EmbeddingKernelTable* embedding;
  const PositionKernelTable* position;
  const PoolingKernelTable* pooling;
  const RecurrentKernelTable* recurrent;
};

// The instruction sets of the build: scalar (always) and FOCAL_ISAS.
#define FOCAL_ISA_ENUMERATOR(isa) isa,
enum class Isa : uint8_t { scalar, FOCAL_FOR_EACH_BUILT_ISA(FOCAL_ISA_ENUMERATOR) };
#undef FOCAL_ISA_ENUMERATOR

// One family's table (Table: its table type) for one instruction set, specialized for
// each family by that instruction set's compilation of dispatch/kernel_set_instance.cpp.
template <Isa kIsa, class Table>
const Table* isa_kernels();

#define FOCAL_DECLARE_ISA_KERNELS(isa)                                               \
  template <>                                                                        \
  const AttentionKernelTable* isa_kernels<Isa::isa, AttentionKernelTable>();         \
  template <>                                                                        \
  const ScoringKernelTable* isa_kernels<Isa::isa, ScoringKernelTable>();             \
  template <>                                                                        \
  const GemmKernelTable* isa_kernels<Isa::isa, GemmKernelTable>();                   \
  template <>                                                                        \
  const NormalizationKernelTable* isa_kernels<Isa::isa, NormalizationKernelTable>(); \
  template <>                                                                        \
  const SoftmaxKernelTable* isa_kernels<Isa::isa, SoftmaxKernelTable>();             \
  template <>                                                                        \
  const ElementwiseKernelTable* isa_kernels<Isa::isa, ElementwiseKernelTable>();     \
  template <>                                                                        \
  const EmbeddingKernelTable* isa_kernels<Isa::isa, EmbeddingKernelTable>();         \
  template <>                                                                        \
  const PositionKernelTable* isa_kernels<Isa::isa, PositionKernelTable>();           \
  template <>                                                                        \
  const PoolingKernelTable* isa_kernels<Isa::isa, PoolingKernelTable>();             \
  template <>                                                                        \
  const RecurrentKernelTable* isa_kernels<Isa::isa, RecurrentKernelTable>();
FOCAL_DECLARE_ISA_KERNELS(scalar)
FOCAL_FOR_EACH_BUILT_ISA(FOCAL_DECLARE_ISA_KERNELS)
#undef FOCAL_DECLARE_ISA_KERNELS

// The first usable instruction set of FOCAL_ISAS (best first), else scalar.
template <class Table>
const Table* choose_best_kernels() {
  const CpuIsas& isas = usable_isas();
  (void)isas;
#define FOCAL_RETURN_IF_USABLE(isa) \
  if (isas.isa) return isa_kernels<Isa::isa, Table>();
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
// points that take a set: ops never name an instruction set).
constexpr KernelSet kBestKernels = {"best",  nullptr, nullptr, nullptr, nullptr, nullptr,
                                    nullptr, nullptr, nullptr, nullptr, nullptr};

// Every set this build has, scalar included, fits.
constexpr int kMaxKernelSets = 8;

struct KernelSets {
  const KernelSet* sets[kMaxKernelSets];
  int count;
};

// The best set on this CPU, every family resolved (for tests and reports).
const KernelSet& best_kernel_set();

// Every set this CPU can run, scalar first, then FOCAL_ISAS from the simplest.
const KernelSets& usable_kernel_sets();

}  // namespace kernels
}  // namespace focal
