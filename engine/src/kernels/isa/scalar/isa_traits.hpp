// The scalar kernel set's instruction set and tuning, read by the one per-ISA translation
// unit (dispatch/kernel_set_instance.cpp), which engine/CMakeLists.txt compiles once for
// each instruction set of the build, with only that instruction set's flags.
// No SIMD: Cortex-M4/M7, and the twin of every tiling and loop structure elsewhere.
// Baseline flags, every target.
#pragma once

#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {  // per translation unit: nothing here may be merged across instruction sets

using IsaArch = simd::ScalarArch;
constexpr const char* kIsaName = "scalar";

// GEMM (gemm/gemm_simd.hpp): 4 rows x 4 vectors per register tile, 8 GEMV
// accumulators, K blocks of 256.
// Register tile 4 x 4 floats: 16 accumulators of the 32 single-precision registers of a
// Cortex-M4F/M7 FPU, 4 weights and a broadcast; GEMV: 8 sums. K blocks of 256.
constexpr size_t kGemmTileRows = 4, kGemmTileVectors = 4, kGemvAccumulators = 8;
constexpr size_t kGemmKBlock = 256;

// Tiled attention (attention/attention_simd.hpp): key vectors per register tile;
// no SIMD: the twin of the tiling itself.
constexpr size_t kAttentionKeyVectors = 4;

// Attention scoring (scoring/scoring_simd.hpp): weighted_sum's vectors of sums;
// the twin of the loop structure itself.
constexpr size_t kScoringSumVectors = 4;

}  // namespace
}  // namespace kernels
}  // namespace focal
