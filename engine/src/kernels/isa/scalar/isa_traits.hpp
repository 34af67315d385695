// The scalar kernel set (isa/isa_tuning.hpp says what each number means).
// No SIMD: Cortex-M4/M7, and the twin of every tiling and loop structure elsewhere.
// Baseline flags, every target.
// GEMM: Register tile 4 x 4 floats: 16 accumulators of the 32 single-precision registers
// of a Cortex-M4F/M7 FPU, 4 weights and a broadcast; GEMV: 8 sums. K blocks of 256.
// Attention: no SIMD: the twin of the tiling itself. Scoring: the twin of the loop
// structure itself.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_scalar.hpp"

FOCAL_ISA_TUNING(simd::ScalarArch, "scalar", 4, 4, 8, 256, 4, 4)
