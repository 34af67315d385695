// The neon kernel set (isa/isa_tuning.hpp says what each number means).
// ARMv7 NEON (-mfpu=neon-vfpv4, from the armhf toolchain): 4-float q registers, VFPv4 FMA.
// GEMM: Register tile 4 x 8 (a quarter panel row): 8 accumulators of the 16 q registers,
// 2 weight vectors, a broadcast; GEMV: 8 accumulators.
// Attention: 16 q registers: 4 rows x 2 key vectors = 8 accumulators. Scoring: 16 q
// registers: weighted_sum keeps 4 vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_xsimd.hpp"

FOCAL_ISA_TUNING(xsimd::neon, "neon", 4, 2, 8, 512, 2, 4)
