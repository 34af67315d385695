// The kernel sets: one per instruction set of the build, each holding every kernel
// family's entry points (engine/src/kernels/<family>/), all compiled in one translation
// unit with that instruction set's flags (dispatch/kernel_set_instance.cpp, tuned by
// isa/<isa>/isa_traits.hpp). Which sets exist comes from one list, FOCAL_ISAS in
// engine/CMakeLists.txt, which generates focal_kernel_isas.h.
//
// The set is chosen once: the best usable one for ops and the public kernel API, or a
// given one (tests sweep every usable set; benchmarks compare them). Hot loops never
// ask.
#pragma once

#include "focal_kernel_isas.h"

namespace focal {
namespace kernels {

// Each family's table is declared in its header (<family>/<family>.h); a user of one
// family includes that one alone.
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

// Every set this build has, scalar included, fits.
constexpr int kMaxKernelSets = 8;

struct KernelSets {
  const KernelSet* sets[kMaxKernelSets];
  int count;
};

// The best set this CPU can run (the first usable one of FOCAL_ISAS, which lists them
// best first; scalar where none is), chosen on the first call.
const KernelSet& best_kernel_set();

// Every set this CPU can run, scalar first, then FOCAL_ISAS from the simplest.
const KernelSets& usable_kernel_sets();

// One set per instruction set of the build, each defined by its own compilation of
// dispatch/kernel_set_instance.cpp; scalar is always built.
const KernelSet& kernel_set_scalar();
#define FOCAL_DECLARE_KERNEL_SET(isa) const KernelSet& kernel_set_##isa();
FOCAL_FOR_EACH_BUILT_ISA(FOCAL_DECLARE_KERNEL_SET)
#undef FOCAL_DECLARE_KERNEL_SET

}  // namespace kernels
}  // namespace focal
