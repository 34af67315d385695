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

const AttentionKernelTable kTable = {"scalar", run_task_scalar};

}  // namespace

const AttentionKernelTable* attention_kernels_scalar() { return &kTable; }

}  // namespace kernels
}  // namespace focal
