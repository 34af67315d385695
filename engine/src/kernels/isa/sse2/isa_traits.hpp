// The sse2 kernel set (isa/isa_tuning.hpp says what each number means).
// SSE2: 4-float xmm vectors, no FMA and no F16C (f16 weights convert lane by lane).
// GEMM: Register tile 4 x 8 (a quarter panel row): 8 accumulators of the 16 xmm
// registers, 2 weight vectors, a broadcast and a product temporary (no FMA); GEMV: 8
// accumulators.
// Attention: 16 xmm registers: 4 rows x 2 key vectors = 8 accumulators. Scoring: 16 xmm
// registers: weighted_sum keeps 4 vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_xsimd.hpp"

FOCAL_ISA_TUNING(xsimd::sse2, "sse2", 4, 2, 8, 768, 2, 4)
