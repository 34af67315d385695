// The neon kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// ARMv7 NEON (-mfpu=neon-vfpv4, from the armhf toolchain): 4-float q registers, VFPv4 FMA.
#pragma once

#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = xsimd::neon;
constexpr const char* kIsaName = "neon";

// GEMM (gemm/gemm_simd.hpp): 4 rows x 2 vectors per register tile, 8 GEMV
// accumulators, K blocks of 512.
// Register tile 4 x 8 (a quarter panel row): 8 accumulators of the 16 q registers, 2 weight
// vectors, a broadcast; GEMV: 8 accumulators.
constexpr size_t kGemmTileRows = 4, kGemmTileVectors = 2, kGemvAccumulators = 8;
constexpr size_t kGemmKBlock = 512;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// 16 q registers: 4 rows x 2 key vectors = 8 accumulators.
constexpr size_t kAttentionKeyVectors = 2;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// 16 q registers: weighted_sum keeps 4 vectors of sums.
constexpr size_t kScoringSumVectors = 4;

}  // namespace
}  // namespace kernels
}  // namespace focal
