// The tiled attention kernel for avx512; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: 32 zmm registers: 4 rows x 4 key vectors = 16 accumulators, 64 keys a pass.
#include "simd/vec_xsimd.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_avx512(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<xsimd::avx512bw, 4>::run(params, task, scratch);
}

void exp2_avx512(const float* x, float* y, size_t count) {
  exp2_array<xsimd::avx512bw>(x, y, count);
}

const AttentionKernelTable kTable = {"avx512", run_task_avx512, exp2_avx512};

}  // namespace

const AttentionKernelTable* attention_kernels_avx512() { return &kTable; }

}  // namespace kernels
}  // namespace focal
