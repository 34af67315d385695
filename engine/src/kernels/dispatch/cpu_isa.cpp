#include "dispatch/cpu_isa.h"

#if defined(FOCAL_HAVE_CPU_SSE2) || defined(FOCAL_HAVE_CPU_AVX2) || defined(FOCAL_HAVE_CPU_AVX512)
#define FOCAL_X86_DISPATCH 1
#include <cpuid.h>

#include <xsimd/xsimd.hpp>
#endif
#if defined(FOCAL_HAVE_CPU_AMX)
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(FOCAL_HAVE_CPU_NEON64_DOTPROD) || defined(FOCAL_HAVE_CPU_NEON64_I8MM)
#include <sys/auxv.h>
#endif

namespace focal {
namespace {

#if defined(FOCAL_X86_DISPATCH)
// CPUID leaf 7, subleaf 0 (ECX, EDX), zero where the CPU has no such leaf.
struct Leaf7 {
  unsigned ecx = 0, edx = 0;
};
Leaf7 cpuid_leaf7() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0) return {};
  return {ecx, edx};
}
#endif

#if defined(FOCAL_HAVE_CPU_AMX)
// Linux enables AMX's 8 KiB tile state per process on request (arch_prctl
// ARCH_REQ_XCOMP_PERM = 0x1023 for XTILEDATA, feature 18); a kernel without it, or one that
// refuses, leaves the AVX-512 VNNI variant.
bool os_grants_amx_tiles() {
  constexpr long kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
}
#endif

// What every CPU the build targets has.
constexpr CpuFeatures built_in() {
  CpuFeatures f;
#if defined(FOCAL_HAVE_CPU_NEON64)
  f.neon64 = true;  // every AArch64 CPU has Advanced SIMD
#endif
#if defined(FOCAL_HAVE_CPU_NEON)
  f.neon = true;  // the armhf build requires NEON (-mfpu=neon-vfpv4)
#endif
#if defined(FOCAL_HAVE_CPU_MVE)
  f.mve = true;  // built only for cores that have it (-mcpu=cortex-m55)
#endif
  return f;
}

#if defined(FOCAL_X86_DISPATCH) || defined(FOCAL_HAVE_CPU_NEON64_DOTPROD) || \
    defined(FOCAL_HAVE_CPU_NEON64_I8MM)
#define FOCAL_CPU_ASKED_AT_RUN_TIME 1
CpuFeatures detect() {
  CpuFeatures f = built_in();
#if defined(FOCAL_X86_DISPATCH)
  const auto cpu = xsimd::available_architectures();
  // xsimd does not report F16C, which the AVX2 kernels use for f16 K/V: CPUID leaf 1,
  // ECX bit 29 (asked directly: clang's __builtin_cpu_supports does not know "f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && ((ecx >> 29) & 1u) != 0;
  const Leaf7 leaf7 = cpuid_leaf7();
  (void)leaf7;
#endif
#if defined(FOCAL_HAVE_CPU_SSE2)
  f.sse2 = cpu.sse2;
#endif
#if defined(FOCAL_HAVE_CPU_AVX2)
  f.avx2 = cpu.fma3_avx2 && f16c;
#endif
#if defined(FOCAL_HAVE_CPU_AVX512)
  f.avx512 = cpu.avx512bw && cpu.avx512dq && cpu.avx512cd && f16c;
#endif
#if defined(FOCAL_HAVE_CPU_AVX512VNNI)
  // Leaf 7 ECX bit 11: AVX512_VNNI (the OS state is the avx512 set's check).
  f.avx512vnni = f.avx512 && ((leaf7.ecx >> 11) & 1u) != 0;
#endif
#if defined(FOCAL_HAVE_CPU_AMX)
  // Leaf 7 EDX bits 24 and 25: AMX-TILE and AMX-INT8; the amx variant also runs VNNI's
  // code for K tails and partial tiles. One permission request per process.
  f.amx = f.avx512vnni && ((leaf7.edx >> 24) & 1u) != 0 && ((leaf7.edx >> 25) & 1u) != 0 &&
          os_grants_amx_tiles();
#endif
#if defined(FOCAL_HAVE_CPU_NEON64_DOTPROD)
  // Linux hwcaps (asm/hwcap.h): HWCAP_ASIMDDP is bit 20 of AT_HWCAP.
  f.neon64_dotprod = (getauxval(AT_HWCAP) & (1ul << 20)) != 0;
#endif
#if defined(FOCAL_HAVE_CPU_NEON64_I8MM)
  // HWCAP2_I8MM is bit 13 of AT_HWCAP2; the i8mm variant uses the dot products too.
  f.neon64_i8mm = (getauxval(AT_HWCAP) & (1ul << 20)) != 0 && (getauxval(AT_HWCAP2) & (1ul << 13)) != 0;
#endif
  return f;
}
#endif

}  // namespace

const CpuFeatures& cpu_features() {
#if defined(FOCAL_CPU_ASKED_AT_RUN_TIME)
  static const CpuFeatures features = detect();
#else
  // Known when the engine is built (armv7, Cortex-M): no guard, no question to the CPU.
  static constexpr CpuFeatures features = built_in();
#endif
  return features;
}

}  // namespace focal
