// The avx512 kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// AVX-512 (x86-64-v4: F, CD, DQ, BW, VL): 16-float zmm vectors.
#pragma once

#include "simd/vec_xsimd.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = xsimd::avx512bw;
constexpr const char* kIsaName = "avx512";

// GEMM (gemm/gemm_simd.hpp): 8 rows x 2 vectors per register tile, 16 GEMV
// accumulators, K blocks of 768.
// Register tile 8 x 32, a whole panel row: 16 accumulators of the 32 zmm registers, 2
// weight vectors, a broadcast; 16 FMAs, 2 loads and 8 broadcasts per k, no spills
// (objdump). GEMV: up to 16 accumulators (at M = 1, 4 panels x 2 vectors x 2 partial sums,
// one x broadcast per 8 FMAs).
constexpr size_t kGemmTileRows = 8, kGemmTileVectors = 2, kGemvAccumulators = 16;
constexpr size_t kGemmKBlock = 768;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// 32 zmm registers: 4 rows x 4 key vectors = 16 accumulators, 64 keys a pass.
constexpr size_t kAttentionKeyVectors = 4;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// 32 zmm registers: weighted_sum keeps 8 vectors of sums.
constexpr size_t kScoringSumVectors = 8;

}  // namespace
}  // namespace kernels
}  // namespace focal
