// The int8 GEMM variants of this build (FOCAL_QGEMM_VARIANTS), whether this CPU can run
// each, and the best one. Asked once; hot loops never ask.
#include "focal_qgemm_variants.h"
#include "dispatch/cpu_isa.h"
#include "qgemm/qgemm_kernels.h"

#if defined(FOCAL_HAVE_QGEMM_AVX512VNNI)
#include <cpuid.h>
#endif
#if defined(FOCAL_HAVE_QGEMM_AMX)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(FOCAL_HAVE_QGEMM_NEON64_DOTPROD) || defined(FOCAL_HAVE_QGEMM_NEON64_I8MM)
#include <sys/auxv.h>
#endif

namespace focal {
namespace kernels {

// Each variant's table, defined in its own translation unit (qgemm/qgemm_<variant>.cpp).
#define FOCAL_DECLARE_QGEMM_VARIANT(variant) const QGemmKernelTable* qgemm_##variant##_kernels();
FOCAL_FOR_EACH_QGEMM_VARIANT(FOCAL_DECLARE_QGEMM_VARIANT)
FOCAL_DECLARE_QGEMM_VARIANT(scalar)
#undef FOCAL_DECLARE_QGEMM_VARIANT

namespace {

// What each variant needs beyond being built: the CPU features its instructions use.
#if defined(FOCAL_HAVE_QGEMM_AVX512VNNI)
bool cpu_has_avx512vnni() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // CPUID leaf 7, subleaf 0, ECX bit 11: AVX512_VNNI (the OS state is the avx512 set's check).
  return usable_isas().avx512 && __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) != 0 &&
         ((ecx >> 11) & 1u) != 0;
}
#endif
#if defined(FOCAL_HAVE_QGEMM_AMX)
// CPUID leaf 7, subleaf 0, EDX bits 24 and 25: AMX-TILE and AMX-INT8; the amx variant
// also runs VNNI's code for K tails and partial tiles. Linux enables the 8 KiB tile state
// per process on request (arch_prctl ARCH_REQ_XCOMP_PERM = 0x1023 for XTILEDATA,
// feature 18); a kernel without it, or one that refuses, leaves the VNNI variant.
bool cpu_has_amx_int8() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!cpu_has_avx512vnni() || __get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return false;
  if (((edx >> 24) & 1u) == 0 || ((edx >> 25) & 1u) == 0) return false;
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}
#endif
#if defined(FOCAL_HAVE_QGEMM_NEON64_DOTPROD) || defined(FOCAL_HAVE_QGEMM_NEON64_I8MM)
// Linux hwcaps (asm/hwcap.h): HWCAP_ASIMDDP is bit 20 of AT_HWCAP, HWCAP2_I8MM bit 13 of
// AT_HWCAP2.
bool cpu_has_dotprod() { return (getauxval(AT_HWCAP) & (1ul << 20)) != 0; }
bool cpu_has_i8mm() { return cpu_has_dotprod() && (getauxval(AT_HWCAP2) & (1ul << 13)) != 0; }
#endif

bool usable(const QGemmKernelTable* table) {
  (void)table;  // unused in builds with only the base variants
#if defined(FOCAL_HAVE_QGEMM_AMX)
  if (table == qgemm_amx_kernels()) {
    static const bool amx = cpu_has_amx_int8();  // one permission request per process
    return amx;
  }
#endif
#if defined(FOCAL_HAVE_QGEMM_AVX512VNNI)
  if (table == qgemm_avx512vnni_kernels()) return cpu_has_avx512vnni();
#endif
#if defined(FOCAL_HAVE_QGEMM_AVX2)
  if (table == qgemm_avx2_kernels()) return usable_isas().avx2;
#endif
#if defined(FOCAL_HAVE_QGEMM_SSE2)
  if (table == qgemm_sse2_kernels()) return usable_isas().sse2;
#endif
#if defined(FOCAL_HAVE_QGEMM_NEON64_I8MM)
  if (table == qgemm_neon64_i8mm_kernels()) return cpu_has_i8mm();
#endif
#if defined(FOCAL_HAVE_QGEMM_NEON64_DOTPROD)
  if (table == qgemm_neon64_dotprod_kernels()) return cpu_has_dotprod();
#endif
  return true;  // scalar, and the base SIMD of builds that require it (neon64, neon, mve)
}

const QGemmKernelTable* const* build_list() {
#define FOCAL_LIST_QGEMM_VARIANT(variant) qgemm_##variant##_kernels(),
  static const QGemmKernelTable* const list[] = {FOCAL_FOR_EACH_QGEMM_VARIANT(FOCAL_LIST_QGEMM_VARIANT)
#if !defined(FOCAL_QGEMM_NO_SCALAR)
                                                     qgemm_scalar_kernels(),
#endif
                                                     nullptr};
#undef FOCAL_LIST_QGEMM_VARIANT
  return list;
}

// The first usable variant; the list ends with one every CPU of the build runs (scalar,
// or the M55's MVE), which is the answer should nothing before it be usable.
const QGemmKernelTable& choose_best() {
  const QGemmKernelTable* const* t = qgemm_variants();
  while (t[1] != nullptr && !usable(*t)) ++t;
  return **t;
}

}  // namespace

const QGemmKernelTable* const* qgemm_variants() { return build_list(); }

bool qgemm_variant_usable(const QGemmKernelTable& table) { return usable(&table); }

const QGemmKernelTable& best_qgemm_kernels() {
  static const QGemmKernelTable& best = choose_best();
  return best;
}

}  // namespace kernels
}  // namespace focal
