// Running a GEMM on a kernel set: describe the problem for the kernels, cut it into tasks
// (blocks of rows x blocks of panels, fixed sizes, so the split never depends on the
// workers), run them over the caller's workers.
#include "dispatch/gemm_dispatch.h"

#include "support/trusted_call.h"

namespace focal {
namespace {

using kernels::GemmProblem;
using kernels::GemmTask;
using kernels::GemmWeights;
using kernels::kGemmPanel;

// Tiled path: a task is tile_rows * kTilesPerTask rows by kPanelsPerTask panels (on
// AVX-512 64 rows x 128 outputs; its x block, 64 x 768 floats, and a panel's k block,
// 768 x 32 floats, stay in L2 while every row tile uses them). GEMV: all rows by
// kPanelsPerTask panels. The split only decides who computes an output, never how.
constexpr size_t kTilesPerTask = 8;
constexpr size_t kPanelsPerTask = 4;

struct Plan {
  const GemmProblem* problem;
  kernels::GemmTaskFn run_task;
  size_t row_block;  // rows per task
  size_t panel_blocks;
};

GemmTask make_task(const Plan& plan, size_t index) {
  const GemmProblem& p = *plan.problem;
  const size_t row_index = index / plan.panel_blocks, panel_index = index % plan.panel_blocks;
  GemmTask t;
  t.row_begin = row_index * plan.row_block;
  t.row_end = t.row_begin + plan.row_block < p.m ? t.row_begin + plan.row_block : p.m;
  t.panel_begin = panel_index * kPanelsPerTask;
  t.panel_end =
      t.panel_begin + kPanelsPerTask < p.panels ? t.panel_begin + kPanelsPerTask : p.panels;
  return t;
}

void run_one_task(void* context, size_t index, int /*worker*/) {
  const Plan& plan = *static_cast<const Plan*>(context);
  plan.run_task(*plan.problem, make_task(plan, index));
}

}  // namespace

GemmProblem describe_gemm(const GemmParams& p) {
  GemmProblem problem{};  // zeroed: every field is set below, the type only when known
  gemm_weight_type(p.weight_type, &problem.type);
  problem.m = p.m;
  problem.n = p.n;
  problem.k = p.k;
  problem.panels = (p.n + kGemmPanel - 1) / kGemmPanel;
  problem.activation = p.activation;
  problem.x = p.x;
  problem.x_stride = p.x_stride == 0 ? p.k : p.x_stride;
  problem.weights = p.packed_weights;
  problem.scales =
      problem.type == GemmWeights::kI8
          ? reinterpret_cast<const float*>(static_cast<const uint8_t*>(p.packed_weights) +
                                           kernels::gemm_scales_offset(problem.panels, p.k))
          : nullptr;
  problem.bias = p.bias;
  problem.y = p.y;
  problem.y_stride = p.y_stride == 0 ? p.n : p.y_stride;
  return problem;
}

bool gemm_weight_type(DType type, GemmWeights* out) {
  switch (type) {
    case DType::kF32:
      *out = GemmWeights::kF32;
      return true;
    case DType::kF16:
      *out = GemmWeights::kF16;
      return true;
    case DType::kBF16:
      *out = GemmWeights::kBF16;
      return true;
    case DType::kI8:
      *out = GemmWeights::kI8;
      return true;
    default:
      return false;
  }
}

void run_gemm(const GemmParams& params, ParallelFor* parallel, const kernels::KernelSet& set) {
  FOCAL_EXPECT_VALID(check_gemm_params(params));
  const GemmProblem problem = describe_gemm(params);
  const kernels::GemmKernelTable& table = *kernels::kernels_of(set, &kernels::KernelSet::gemm);
  Plan plan;
  plan.problem = &problem;
  plan.run_task = table.run_task[static_cast<int>(problem.type)];
  plan.row_block = problem.m <= kernels::kGemvMaxRows ? problem.m : table.tile_rows * kTilesPerTask;
  plan.panel_blocks = (problem.panels + kPanelsPerTask - 1) / kPanelsPerTask;
  const size_t row_blocks = (problem.m + plan.row_block - 1) / plan.row_block;
  const size_t tasks = row_blocks * plan.panel_blocks;
  if (parallel != nullptr && parallel->workers() > 1 && tasks > 1) {
    parallel->run(tasks, run_one_task, &plan);
  } else {
    for (size_t t = 0; t < tasks; ++t) run_one_task(&plan, t, 0);
  }
}

Status gemm_with_kernels(const GemmParams& params, const kernels::KernelSet& set,
                         ParallelFor* parallel) {
  FOCAL_RETURN_IF_ERROR(check_gemm_params(params));
  run_gemm(params, parallel, set);
  return Status();
}

}  // namespace focal
