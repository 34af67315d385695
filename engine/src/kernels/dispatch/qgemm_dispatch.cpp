// The int8 GEMM variants of this build (engine/CMakeLists.txt: the QGEMM variants of each
// focal_isa() line), whether this CPU can run each (cpu_isa.cpp asks it), and the best
// one. Asked once; hot loops never ask.
#include "dispatch/kernel_set.h"
#include "dispatch/kernel_variants.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {

// Each variant's table, defined in its own translation unit (qgemm/qgemm_<variant>.cpp).
#define FOCAL_DECLARE_QGEMM_VARIANT(variant, ...) const QGemmKernelTable* qgemm_##variant##_kernels();
FOCAL_FOR_EACH_QGEMM_VARIANT(FOCAL_DECLARE_QGEMM_VARIANT)
FOCAL_DECLARE_QGEMM_VARIANT(scalar, scalar)
#undef FOCAL_DECLARE_QGEMM_VARIANT

namespace {

// Best first; the scalar variant last (kernel_variants.h). Built on first use, so a
// firmware that runs no int8 GEMM links none of it.
const KernelVariant<QGemmKernelTable>* variants() {
#define FOCAL_QGEMM_VARIANT(variant, isa) {qgemm_##variant##_kernels(), Isa::isa, &CpuFeatures::variant},
  static const KernelVariant<QGemmKernelTable> list[] = {
      FOCAL_FOR_EACH_QGEMM_VARIANT(FOCAL_QGEMM_VARIANT) FOCAL_QGEMM_VARIANT(scalar, scalar)};
#undef FOCAL_QGEMM_VARIANT
  return list;
}

}  // namespace

const QGemmKernelTable* const* qgemm_variants() {
#define FOCAL_LIST_QGEMM_VARIANT(variant, ...) qgemm_##variant##_kernels(),
  static const QGemmKernelTable* const list[] = {
      FOCAL_FOR_EACH_QGEMM_VARIANT(FOCAL_LIST_QGEMM_VARIANT) qgemm_scalar_kernels(), nullptr};
#undef FOCAL_LIST_QGEMM_VARIANT
  return list;
}

bool qgemm_variant_usable(const QGemmKernelTable& table) { return variant_usable(variants(), table); }

template <>
const QGemmKernelTable* variant_kernels<QGemmKernelTable>(Isa at_most) {
  return first_usable_variant(variants(), at_most);
}

const QGemmKernelTable& best_qgemm_kernels() { return *best_kernels<QGemmKernelTable>(); }

}  // namespace kernels
}  // namespace focal
