// The tiled attention kernel for avx2; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: 16 ymm registers: 4 rows x 2 key vectors = 8 accumulators.
#include "simd/vec_xsimd.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_avx2(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<xsimd::fma3<xsimd::avx2>, 2>::run(params, task, scratch);
}

void exp2_avx2(const float* x, float* y, size_t count) {
  exp2_array<xsimd::fma3<xsimd::avx2>>(x, y, count);
}

const AttentionKernelTable kTable = {"avx2", run_task_avx2, exp2_avx2};

}  // namespace

const AttentionKernelTable* attention_kernels_avx2() { return &kTable; }

}  // namespace kernels
}  // namespace focal
