// The avx2 kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// AVX2 + FMA3 + F16C: 8-float ymm vectors.
#pragma once

#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = xsimd::fma3<xsimd::avx2>;
constexpr const char* kIsaName = "avx2";

// GEMM (gemm/gemm_simd.hpp): 6 rows x 2 vectors per register tile, 12 GEMV
// accumulators, K blocks of 768.
// Register tile 6 x 16 (half a panel row): 12 accumulators of the 16 ymm registers, 2
// weight vectors, a broadcast; GEMV: up to 12 accumulators (one x broadcast feeds 2 panels
// at M = 1).
constexpr size_t kGemmTileRows = 6, kGemmTileVectors = 2, kGemvAccumulators = 12;
constexpr size_t kGemmKBlock = 768;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// 16 ymm registers: 4 rows x 2 key vectors = 8 accumulators.
constexpr size_t kAttentionKeyVectors = 2;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// 16 ymm registers: weighted_sum keeps 4 vectors of sums.
constexpr size_t kScoringSumVectors = 4;

}  // namespace
}  // namespace kernels
}  // namespace focal
