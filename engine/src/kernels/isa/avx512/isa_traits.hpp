// The avx512 kernel set (isa/isa_tuning.hpp says what each number means).
// AVX-512 (x86-64-v4: F, CD, DQ, BW, VL): 16-float zmm vectors.
// GEMM: Register tile 8 x 32, a whole panel row: 16 accumulators of the 32 zmm
// registers, 2 weight vectors, a broadcast; 16 FMAs, 2 loads and 8 broadcasts per k, no
// spills (objdump). GEMV: up to 16 accumulators (at M = 1, 4 panels x 2 vectors x 2
// partial sums, one x broadcast per 8 FMAs).
// Attention: 32 zmm registers: 4 rows x 4 key vectors = 16 accumulators, 64 keys a pass.
// Scoring: 32 zmm registers: weighted_sum keeps 8 vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_xsimd.hpp"

FOCAL_ISA_TUNING(xsimd::avx512bw, "avx512", 8, 2, 16, 768, 4, 8)
