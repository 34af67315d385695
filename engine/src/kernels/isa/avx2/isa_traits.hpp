// The avx2 kernel set (isa/isa_tuning.hpp says what each number means).
// AVX2 + FMA3 + F16C: 8-float ymm vectors.
// GEMM: Register tile 6 x 16 (half a panel row): 12 accumulators of the 16 ymm
// registers, 2 weight vectors, a broadcast; GEMV: up to 12 accumulators (one x broadcast
// feeds 2 panels at M = 1).
// Attention: 16 ymm registers: 4 rows x 2 key vectors = 8 accumulators. Scoring: 16 ymm
// registers: weighted_sum keeps 4 vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_xsimd.hpp"

FOCAL_ISA_TUNING(xsimd::fma3<xsimd::avx2>, "avx2", 6, 2, 12, 768, 2, 4)
