// The tiled attention kernel for neon64; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: 32 q registers: 4 rows x 4 key vectors = 16 accumulators.
#include "simd/vec_xsimd.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_neon64(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<xsimd::neon64, 4>::run(params, task, scratch);
}

void exp2_neon64(const float* x, float* y, size_t count) {
  exp2_array<xsimd::neon64>(x, y, count);
}

const AttentionKernelTable kTable = {"neon64", run_task_neon64, exp2_neon64};

}  // namespace

const AttentionKernelTable* attention_kernels_neon64() { return &kTable; }

}  // namespace kernels
}  // namespace focal
