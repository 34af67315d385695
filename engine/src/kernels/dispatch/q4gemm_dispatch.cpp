// The int4 GEMM variants of this build (FOCAL_Q4GEMM_VARIANTS), whether this CPU can run
// each, and the best one. A variant uses the instructions of the int8 GEMM variant of the
// same name (qgemm_dispatch.cpp checks the CPU for those), so it is usable where that one
// is; the scalar variant everywhere. Asked once; hot loops never ask.
#include <cstring>

#include "focal_q4gemm_variants.h"
#include "q4gemm/q4gemm_kernels.h"

namespace focal {
namespace kernels {

#define FOCAL_DECLARE_Q4GEMM_VARIANT(variant) const Q4GemmKernelTable* q4gemm_##variant##_kernels();
FOCAL_FOR_EACH_Q4GEMM_VARIANT(FOCAL_DECLARE_Q4GEMM_VARIANT)
FOCAL_DECLARE_Q4GEMM_VARIANT(scalar)
#undef FOCAL_DECLARE_Q4GEMM_VARIANT

namespace {

bool usable(const Q4GemmKernelTable& table) {
  if (std::strcmp(table.isa, "scalar") == 0) return true;
  for (const QGemmKernelTable* const* t = qgemm_variants(); *t != nullptr; ++t) {
    if (std::strcmp((*t)->isa, table.isa) == 0) return qgemm_variant_usable(**t);
  }
  return false;
}

const Q4GemmKernelTable& choose_best() {
  const Q4GemmKernelTable* const* t = q4gemm_variants();
  while (t[1] != nullptr && !usable(**t)) ++t;
  return **t;
}

}  // namespace

const Q4GemmKernelTable* const* q4gemm_variants() {
#define FOCAL_LIST_Q4GEMM_VARIANT(variant) q4gemm_##variant##_kernels(),
  static const Q4GemmKernelTable* const list[] = {
      FOCAL_FOR_EACH_Q4GEMM_VARIANT(FOCAL_LIST_Q4GEMM_VARIANT) q4gemm_scalar_kernels(), nullptr};
#undef FOCAL_LIST_Q4GEMM_VARIANT
  return list;
}

bool q4gemm_variant_usable(const Q4GemmKernelTable& table) { return usable(table); }

const Q4GemmKernelTable& best_q4gemm_kernels() {
  static const Q4GemmKernelTable& best = choose_best();
  return best;
}

}  // namespace kernels
}  // namespace focal
