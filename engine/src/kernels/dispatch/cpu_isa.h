// Which instruction sets and kernel variants this binary has and this CPU can run: one
// flag per name of engine/CMakeLists.txt's focal_isa() lines (FOCAL_FOR_EACH_CPU_FEATURE),
// and scalar, which every CPU runs. cpu_isa.cpp is the one place that asks the CPU (CPUID,
// the Linux hwcaps, the OS's permission for AMX's tile state); the choosers read these
// flags. Asked once, when the first kernel table is chosen; hot loops never ask.
#pragma once

#include <cstdint>

#include "focal_kernel_isas.h"

namespace focal {

// The instruction sets of the build, best first; the scalar set, always built, last. An
// instruction set "allows" its own variants and those of every set after it.
#define FOCAL_ISA_ENUMERATOR(isa) isa,
enum class Isa : uint8_t { FOCAL_FOR_EACH_BUILT_ISA(FOCAL_ISA_ENUMERATOR) scalar };
#undef FOCAL_ISA_ENUMERATOR
constexpr Isa kBestIsa = static_cast<Isa>(0);

struct CpuFeatures {
#define FOCAL_CPU_FEATURE_FLAG(name) bool name = false;
  FOCAL_FOR_EACH_CPU_FEATURE(FOCAL_CPU_FEATURE_FLAG)
#undef FOCAL_CPU_FEATURE_FLAG
  bool scalar = true;
};

// Built into this binary and supported by this CPU.
const CpuFeatures& cpu_features();

}  // namespace focal
