// Running a GEMM on a kernel set: describe the problem for the kernels, cut it into tasks
// (blocks of rows x blocks of panels, fixed sizes, so the split never depends on the
// workers; a GEMV into one contiguous range of panels per worker), run them over the
// caller's workers. A task only decides who computes an output, never how (every kernel
// computes each panel on its own), so results are bitwise the same for any split.
#include "dispatch/gemm_dispatch.h"

#include <cstdint>

#include "dispatch/parallel_threshold.h"

#include "support/trusted_call.h"

namespace focal {
namespace {

using kernels::GemmProblem;
using kernels::GemmTask;
using kernels::GemmWeights;
using kernels::kGemmPanel;

// Tiled path: a task is tile_rows * kTilesPerTask rows by kPanelsPerTask panels (on
// AVX-512 64 rows x 128 outputs; its x block, 64 x 768 floats, and a panel's k block,
// 768 x 32 floats, stay in L2 while every row tile uses them).
constexpr size_t kTilesPerTask = 8;
constexpr size_t kPanelsPerTask = 4;

struct Plan {
  const GemmProblem* problem;
  kernels::GemmTaskFn run_task;
  size_t row_block;  // rows per task
  size_t panel_blocks;
  // GEMV (m <= kGemvMaxRows): the panels are cut into this many contiguous ranges, one
  // task each (row_block is m, panel_blocks the same count), so each worker streams one
  // part of the packed weights from start to end and writes outputs no other task writes
  // (whole panels: 32 floats, 128 bytes, so no cache line is shared either).
  size_t gemv_parts;
};

GemmTask make_task(const Plan& plan, size_t index) {
  const GemmProblem& p = *plan.problem;
  const size_t row_index = index / plan.panel_blocks, panel_index = index % plan.panel_blocks;
  GemmTask t;
  t.row_begin = row_index * plan.row_block;
  t.row_end = t.row_begin + plan.row_block < p.m ? t.row_begin + plan.row_block : p.m;
  if (plan.gemv_parts != 0) {
    t.panel_begin = p.panels * panel_index / plan.gemv_parts;
    t.panel_end = p.panels * (panel_index + 1) / plan.gemv_parts;
    return t;
  }
  t.panel_begin = panel_index * kPanelsPerTask;
  t.panel_end =
      t.panel_begin + kPanelsPerTask < p.panels ? t.panel_begin + kPanelsPerTask : p.panels;
  return t;
}

int worker_count(const ParallelFor* parallel) { return parallel != nullptr ? parallel->workers() : 1; }

// The task split of `gemm` (its f32 view) for `row_block` rows per task beyond a GEMV's,
// and whether its tasks go to the workers (false: all on the calling thread).
bool plan_tasks(const GemmProblem& gemm, size_t row_block, const ParallelFor* parallel, Plan* plan) {
  // In 64 bits: on 32-bit targets m * n * k can pass SIZE_MAX (each is at most kMaxGemmDim).
  const uint64_t macs = uint64_t{gemm.m} * gemm.n * gemm.k;
  const bool parallel_ok = worker_count(parallel) > 1 && macs >= kMinParallelMacs;
  if (gemm.m <= kernels::kGemvMaxRows) {
    const size_t workers = static_cast<size_t>(worker_count(parallel));
    plan->row_block = gemm.m;
    plan->gemv_parts = parallel_ok ? (workers < gemm.panels ? workers : gemm.panels) : 1;
    plan->panel_blocks = plan->gemv_parts;
  } else {
    plan->row_block = row_block;
    plan->gemv_parts = 0;
    plan->panel_blocks = (gemm.panels + kPanelsPerTask - 1) / kPanelsPerTask;
  }
  return parallel_ok;
}

void run_one_task(void* context, size_t index, int /*worker*/) {
  const Plan& plan = *static_cast<const Plan*>(context);
  plan.run_task(*plan.problem, make_task(plan, index));
}

// Int8 activations and int4 weights run in two phases: phase 1 quantizes blocks of
// kQuantizeRows rows, phase 2 runs the f32 GEMM's task split on the variant's panels.
constexpr size_t kQuantizeRows = 16;

// Problem: kernels::QGemmProblem or Q4GemmProblem; Table: the variant's kernel table.
template <class Problem, class Table>
struct QuantizedPlan {
  const Problem* problem;
  const Table* kernels;
  const kernels::GemmKernelTable* epilogue;
  Plan tasks;  // problem: the f32 view, for make_task
};

template <class QPlan>
void quantize_one_block(void* context, size_t index, int /*worker*/) {
  const QPlan& plan = *static_cast<const QPlan*>(context);
  const size_t begin = index * kQuantizeRows, m = plan.tasks.problem->m;
  plan.kernels->quantize(*plan.problem, begin, begin + kQuantizeRows < m ? begin + kQuantizeRows : m);
}

template <class QPlan>
void run_one_quantized_task(void* context, size_t index, int /*worker*/) {
  const QPlan& plan = *static_cast<const QPlan*>(context);
  plan.kernels->run_task(*plan.problem, make_task(plan.tasks, index), *plan.epilogue);
}

void run_tasks(ParallelFor* parallel, size_t count, void (*task)(void*, size_t, int), void* context) {
  if (parallel != nullptr && parallel->workers() > 1 && count > 1) {
    parallel->run(count, task, context);
  } else {
    for (size_t t = 0; t < count; ++t) task(context, t, 0);
  }
}

// `gemm`: the problem's f32 view; `row_block`: rows per task when m exceeds a decode's.
template <class Problem, class Table>
void run_quantized_gemm(const Problem& problem, const GemmProblem& gemm, const Table& variant, size_t row_block,
                        const kernels::KernelSet& set, ParallelFor* parallel) {
  using QPlan = QuantizedPlan<Problem, Table>;
  QPlan plan;
  plan.problem = &problem;
  plan.kernels = &variant;
  plan.epilogue = kernels::kernels_of(set, &kernels::KernelSet::gemm);
  plan.tasks.problem = &gemm;
  plan.tasks.run_task = nullptr;
  if (!plan_tasks(gemm, row_block, parallel, &plan.tasks)) parallel = nullptr;
  run_tasks(parallel, (gemm.m + kQuantizeRows - 1) / kQuantizeRows, quantize_one_block<QPlan>, &plan);
  const size_t row_blocks = (gemm.m + plan.tasks.row_block - 1) / plan.tasks.row_block;
  run_tasks(parallel, row_blocks * plan.tasks.panel_blocks, run_one_quantized_task<QPlan>, &plan);
}

void run_int8_gemm(const GemmParams& params, ParallelFor* parallel, const kernels::KernelSet& set,
                   const kernels::QGemmKernelTable& variant) {
  const kernels::QGemmProblem problem = describe_qgemm(params);
  // Row blocks a multiple of the tile, so only a task's last tile can be partial.
  run_quantized_gemm(problem, problem.gemm, variant, variant.tile_rows * kTilesPerTask, set, parallel);
}

// Int4 rows per task beyond a decode: blocks of 32 (8 calls of 4 rows per panel).
constexpr size_t kInt4RowBlock = 32;

// Unused (and dropped by the linker) where FOCAL_INT4_WEIGHTS is off.
[[maybe_unused]] void run_int4_gemm(const GemmParams& params, ParallelFor* parallel, const kernels::KernelSet& set,
                                    const kernels::Q4GemmKernelTable& variant) {
  const kernels::Q4GemmProblem problem = describe_q4gemm(params);
  run_quantized_gemm(problem, problem.rows.gemm, variant, kInt4RowBlock, set, parallel);
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

kernels::QGemmProblem describe_qgemm(const GemmParams& p) {
  kernels::QGemmProblem problem{};
  problem.gemm = describe_gemm(p);
  const size_t panels = problem.gemm.panels;
  const uint8_t* packed = static_cast<const uint8_t*>(p.packed_weights);
  problem.groups = kernels::qgemm_groups(p.k);
  problem.weights = reinterpret_cast<const int8_t*>(packed);
  problem.gemm.weights = packed;
  problem.gemm.scales = reinterpret_cast<const float*>(packed + kernels::qgemm_scales_offset(panels, p.k));
  problem.column_sums =
      reinterpret_cast<const int32_t*>(packed + kernels::qgemm_sums_offset(panels, p.k));
  uint8_t* work = static_cast<uint8_t*>(p.workspace);
  problem.a = work;
  problem.a_stride = kernels::qgemm_row_bytes(p.k);
  problem.a_scales =
      reinterpret_cast<float*>(work + kernels::gemm_round_up(p.m * problem.a_stride, 64));
  return problem;
}

kernels::Q4GemmProblem describe_q4gemm(const GemmParams& p) {
  kernels::Q4GemmProblem problem{};
  problem.rows.gemm = describe_gemm(p);  // scales null: the group scales are folded in the sums
  problem.group = p.int4_group;
  problem.groups = kernels::q4_groups(p.k, p.int4_group);
  problem.panel_bytes = kernels::q4_panel_bytes(p.k, p.int4_group);
  problem.weights = static_cast<const uint8_t*>(p.packed_weights);
  uint8_t* work = static_cast<uint8_t*>(p.workspace);
  problem.rows.a = work;
  problem.rows.a_stride = kernels::qgemm_row_bytes(p.k);
  problem.rows.a_scales = reinterpret_cast<float*>(work + kernels::gemm_round_up(p.m * problem.rows.a_stride, 64));
  problem.group_sums = reinterpret_cast<int32_t*>(work + kernels::q4_group_sums_offset(p.m, p.k));
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

void run_gemm(const GemmParams& params, ParallelFor* parallel, const kernels::KernelSet& set,
              const kernels::QGemmKernelTable* int8, const kernels::Q4GemmKernelTable* int4) {
  FOCAL_EXPECT_VALID(check_gemm_params(params));
#if FOCAL_INT4_WEIGHTS  // else check_gemm_params and the loader refuse kI4 (engine/CMakeLists.txt)
  if (params.weight_type == DType::kI4) {
    run_int4_gemm(params, parallel, set,
                  int4 != nullptr ? *int4 : *kernels::kernels_of(set, &kernels::KernelSet::q4gemm));
    return;
  }
#else
  (void)int4;
#endif
  if (params.int8_activations) {
    run_int8_gemm(params, parallel, set,
                  int8 != nullptr ? *int8 : *kernels::kernels_of(set, &kernels::KernelSet::qgemm));
    return;
  }
  const GemmProblem problem = describe_gemm(params);
  const kernels::GemmKernelTable& table = *kernels::kernels_of(set, &kernels::KernelSet::gemm);
  Plan plan;
  plan.problem = &problem;
  plan.run_task = table.run_task[static_cast<int>(problem.type)];
  if (!plan_tasks(problem, table.tile_rows * kTilesPerTask, parallel, &plan)) parallel = nullptr;
  const size_t row_blocks = (problem.m + plan.row_block - 1) / plan.row_block;
  const size_t tasks = row_blocks * plan.panel_blocks;
  run_tasks(parallel, tasks, run_one_task, &plan);
}

Status gemm_with_kernels(const GemmParams& params, const kernels::KernelSet& set,
                         ParallelFor* parallel, const kernels::QGemmKernelTable* int8,
                         const kernels::Q4GemmKernelTable* int4) {
  FOCAL_RETURN_IF_ERROR(check_gemm_params(params));
  run_gemm(params, parallel, set, int8, int4);
  return Status();
}

}  // namespace focal
