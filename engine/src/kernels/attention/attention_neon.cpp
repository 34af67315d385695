// The tiled attention kernel for neon; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: 16 q registers: 4 rows x 2 key vectors = 8 accumulators.
#include "simd/vec_xsimd.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_neon(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<xsimd::neon, 2>::run(params, task, scratch);
}

void exp2_neon(const float* x, float* y, size_t count) {
  exp2_array<xsimd::neon>(x, y, count);
}

const AttentionKernelTable kTable = {"neon", run_task_neon, exp2_neon};

}  // namespace

const AttentionKernelTable* attention_kernels_neon() { return &kTable; }

}  // namespace kernels
}  // namespace focal
