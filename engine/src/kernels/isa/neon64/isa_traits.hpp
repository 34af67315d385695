// The neon64 kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// AArch64 NEON: 4-float q registers, 32 of them.
#pragma once

#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = xsimd::neon64;
constexpr const char* kIsaName = "neon64";

// GEMM (gemm/gemm_simd.hpp): 8 rows x 2 vectors per register tile, 16 GEMV
// accumulators, K blocks of 512.
// Register tile 8 x 8 (a quarter panel row): 16 accumulators of the 32 q registers, 2
// weight vectors, broadcasts; GEMV: up to 16 accumulators. K blocks of 512 (16 KiB of x
// rows and 16 KiB of a panel part: within a 64 KiB L1).
constexpr size_t kGemmTileRows = 8, kGemmTileVectors = 2, kGemvAccumulators = 16;
constexpr size_t kGemmKBlock = 512;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// 32 q registers: 4 rows x 4 key vectors = 16 accumulators.
constexpr size_t kAttentionKeyVectors = 4;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// 32 q registers: weighted_sum keeps 8 vectors of sums.
constexpr size_t kScoringSumVectors = 8;

}  // namespace
}  // namespace kernels
}  // namespace focal
