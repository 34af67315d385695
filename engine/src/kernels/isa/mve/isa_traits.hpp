// The mve kernel set (isa/isa_tuning.hpp says what each number means).
// Arm Helium (MVE, Cortex-M55) through <arm_mve.h>: 4-float Q registers, of which MVE has
// 8. Built only in the Cortex-M55 firmware.
// GEMM: Register tile 2 x 8: 4 accumulators and 2 weight vectors, the rows' values
// broadcast from core registers; GEMV: 4 accumulators. The tile had the fewest
// instructions on both Cortex-M example models under qemu -icount among 1 to 6 rows by 1
// to 4 vectors (4 x 4: 6% and 9% more; 2 x 16: 15% and 25% more).
// Attention: 8 Q registers: 4 rows x 2 key vectors. Scoring: weighted_sum keeps 4
// vectors of sums.
#pragma once

#include "isa/isa_tuning.hpp"
#include "simd/vec_mve.hpp"

FOCAL_ISA_TUNING(simd::MveArch, "mve", 2, 2, 4, 256, 2, 4)
