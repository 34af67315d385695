// The tiled attention kernel for scalar; compiled with that instruction set's flags
// (engine/CMakeLists.txt). Register tile: no SIMD (Cortex-M, and the twin of the tiling itself).
#include "simd/vec_scalar.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_scalar(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<simd::ScalarArch, 4>::run(params, task, scratch);
}

void exp2_scalar(const float* x, float* y, size_t count) {
  exp2_array<simd::ScalarArch>(x, y, count);
}

const AttentionKernelTable kTable = {"scalar", run_task_scalar, exp2_scalar};

}  // namespace

const AttentionKernelTable* attention_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
