// The int4 GEMM variants of this build (engine/CMakeLists.txt: the Q4GEMM variants of each
// focal_isa() line), whether this CPU can run each (cpu_isa.cpp asks it), and the best
// one. Asked once; hot loops never ask.
#include "dispatch/kernel_set.h"
#include "dispatch/kernel_variants.h"
#include "q4gemm/q4gemm_kernels.h"

namespace focal {
namespace kernels {

// Each variant's table, defined in its own translation unit (q4gemm/q4gemm_<variant>.cpp).
#define FOCAL_DECLARE_Q4GEMM_VARIANT(variant, ...) const Q4GemmKernelTable* q4gemm_##variant##_kernels();
FOCAL_FOR_EACH_Q4GEMM_VARIANT(FOCAL_DECLARE_Q4GEMM_VARIANT)
FOCAL_DECLARE_Q4GEMM_VARIANT(scalar, scalar)
#undef FOCAL_DECLARE_Q4GEMM_VARIANT

namespace {

// Best first; the scalar variant last (kernel_variants.h). Built on first use, so a
// firmware that runs no int4 GEMM links none of it.
const KernelVariant<Q4GemmKernelTable>* variants() {
#define FOCAL_Q4GEMM_VARIANT(variant, isa) {q4gemm_##variant##_kernels(), Isa::isa, &CpuFeatures::variant},
  static const KernelVariant<Q4GemmKernelTable> list[] = {
      FOCAL_FOR_EACH_Q4GEMM_VARIANT(FOCAL_Q4GEMM_VARIANT) FOCAL_Q4GEMM_VARIANT(scalar, scalar)};
#undef FOCAL_Q4GEMM_VARIANT
  return list;
}

}  // namespace

const Q4GemmKernelTable* const* q4gemm_variants() {
#define FOCAL_LIST_Q4GEMM_VARIANT(variant, ...) q4gemm_##variant##_kernels(),
  static const Q4GemmKernelTable* const list[] = {
      FOCAL_FOR_EACH_Q4GEMM_VARIANT(FOCAL_LIST_Q4GEMM_VARIANT) q4gemm_scalar_kernels(), nullptr};
#undef FOCAL_LIST_Q4GEMM_VARIANT
  return list;
}

bool q4gemm_variant_usable(const Q4GemmKernelTable& table) { return variant_usable(variants(), table); }

template <>
const Q4GemmKernelTable* variant_kernels<Q4GemmKernelTable>(Isa at_most) {
  return first_usable_variant(variants(), at_most);
}

const Q4GemmKernelTable& best_q4gemm_kernels() { return *best_kernels<Q4GemmKernelTable>(); }

}  // namespace kernels
}  // namespace focal
