// The tiled attention kernel for sse2; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: 16 xmm registers: 4 rows x 2 key vectors = 8 accumulators.
#include "simd/vec_xsimd.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_sse2(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<xsimd::sse2, 2>::run(params, task, scratch);
}

void exp2_sse2(const float* x, float* y, size_t count) {
  exp2_array<xsimd::sse2>(x, y, count);
}

const AttentionKernelTable kTable = {"sse2", run_task_sse2, exp2_sse2};

}  // namespace

const AttentionKernelTable* attention_kernels_sse2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
