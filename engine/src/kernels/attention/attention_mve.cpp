// The attention kernels for Arm Helium (MVE, Cortex-M55): 4-float Q registers.
// Compiled only in the Cortex-M55 build (engine/CMakeLists.txt).
#include "simd/vec_mve.hpp"
#include "attention/attention_simd.hpp"

namespace focal {
namespace kernels {
namespace {

void run_task_mve(const AttentionParams& params, const AttentionTask& task, float* scratch) {
  TiledAttention<simd::MveArch, 2>::run(params, task, scratch);
}

void exp2_mve(const float* x, float* y, size_t count) {
  exp2_array<simd::MveArch>(x, y, count);
}

const AttentionKernelTable kTable = {"mve", run_task_mve, exp2_mve};

}  // namespace

const AttentionKernelTable* attention_kernels_mve() { return &kTable; }

}  // namespace kernels
}  // namespace focal
