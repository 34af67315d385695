// The neon64 kernel set (isa/isa_tuning.hpp says what each number means).
// AArch64 NEON: 4-float q registers, 32 of them.
// GEMM: Register tile 8 x 8 (a quarter panel row): 16 accumulators of the 32 q
// registers, 2 weight vectors, broadcasts; GEMV: up to 16 accumulators. K blocks of 512
// (16 KiB of x rows and 16 KiB of a panel part: within a 64 KiB L1).
// Attention: 32 q registers: 4 rows x 4 key vectors = 16 accumulators. Scoring: 32 q
// registers: weighted_sum keeps 8 vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_xsimd.hpp"

FOCAL_ISA_TUNING(xsimd::neon64, "neon64", 8, 2, 16, 512, 4, 8)
