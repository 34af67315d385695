// The mve kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// Arm Helium (MVE, Cortex-M55) through <arm_mve.h>: 4-float Q registers, of which MVE has
// 8. Built only in the Cortex-M55 firmware.
#pragma once

#include "simd/vec_mve.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = simd::MveArch;
constexpr const char* kIsaName = "mve";

// GEMM (gemm/gemm_simd.hpp): 2 rows x 2 vectors per register tile, 4 GEMV
// accumulators, K blocks of 256.
// Register tile 2 x 8: 4 accumulators and 2 weight vectors, the rows' values broadcast from
// core registers; GEMV: 4 accumulators. The tile had the fewest instructions on both
// Cortex-M example models under qemu -icount among 1 to 6 rows by 1 to 4 vectors (4 x 4: 6%
// and 9% more; 2 x 16: 15% and 25% more).
constexpr size_t kGemmTileRows = 2, kGemmTileVectors = 2, kGemvAccumulators = 4;
constexpr size_t kGemmKBlock = 256;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// 8 Q registers: 4 rows x 2 key vectors.
constexpr size_t kAttentionKeyVectors = 2;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// weighted_sum keeps 4 vectors of sums.
constexpr size_t kScoringSumVectors = 4;

}  // namespace
}  // namespace kernels
}  // namespace focal
