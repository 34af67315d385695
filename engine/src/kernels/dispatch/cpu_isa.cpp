#include "dispatch/cpu_isa.h"

#include "focal_kernel_isas.h"

#if defined(FOCAL_HAVE_ISA_SSE2) || defined(FOCAL_HAVE_ISA_AVX2) || defined(FOCAL_HAVE_ISA_AVX512)
#define FOCAL_X86_DISPATCH 1
#include <cpuid.h>

#include <xsimd/xsimd.hpp>
#endif

namespace focal {
namespace {

CpuIsas detect() {
  CpuIsas isas;
#if defined(FOCAL_X86_DISPATCH)
  const auto cpu = xsimd::available_architectures();
  // xsimd does not report F16C, which the AVX2 kernels use for f16 K/V: CPUID leaf 1,
  // ECX bit 29 (asked directly: clang's __builtin_cpu_supports does not know "f16c").
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && ((ecx >> 29) & 1u) != 0;
#endif
#if defined(FOCAL_HAVE_ISA_SSE2)
  isas.sse2 = cpu.sse2;
#endif
#if defined(FOCAL_HAVE_ISA_AVX2)
  isas.avx2 = cpu.fma3_avx2 && f16c;
#endif
#if defined(FOCAL_HAVE_ISA_AVX512)
  isas.avx512 = cpu.avx512bw && cpu.avx512dq && cpu.avx512cd && f16c;
#endif
#if defined(FOCAL_HAVE_ISA_NEON64)
  isas.neon64 = true;  // every AArch64 CPU has Advanced SIMD
#endif
#if defined(FOCAL_HAVE_ISA_NEON)
  isas.neon = true;  // the armhf build requires NEON (-mfpu=neon-vfpv4)
#endif
#if defined(FOCAL_HAVE_ISA_MVE)
  isas.mve = true;  // built only for cores that have it (-mcpu=cortex-m55)
#endif
  return isas;
}

}  // namespace

const CpuIsas& usable_isas() {
  static const CpuIsas isas = detect();
  return isas;
}

}  // namespace focal
