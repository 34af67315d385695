// The public GEMM entry points: check the problem, cut it into tasks (blocks of rows x
// blocks of panels, fixed sizes, so the split never depends on the workers), run them
// on the best kernel for this CPU over the caller's workers. Also the weight packing.
#include <cstdint>

#include "focal/gemm.h"
#include "gemm/gemm.h"
#include "dispatch/gemm_dispatch.h"
#include "dispatch/kernel_set.h"

namespace focal {
namespace {

using kernels::GemmKernelTable;
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

bool weight_type(DType type, GemmWeights* out) {
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

bool valid_dim(size_t dim) { return dim >= 1 && dim <= kMaxGemmDim; }

Status invalid(const char* what) {
  return Status::error(StatusCode::kInvalidArgument, "gemm: %s", what);
}

// [begin, begin + bytes) and [other, other + other_bytes) share a byte.
bool overlap(const void* begin, size_t bytes, const void* other, size_t other_bytes) {
  const uintptr_t a = reinterpret_cast<uintptr_t>(begin), b = reinterpret_cast<uintptr_t>(other);
  return a < b + other_bytes && b < a + bytes;
}

// Bytes spanned by `rows` rows of `cols` floats, `stride` apart; 0 if that overflows.
size_t span_bytes(size_t rows, size_t cols, size_t stride) {
  const size_t limit = SIZE_MAX / 4;
  if (rows > 1 && stride > (limit - cols) / (rows - 1)) return 0;
  return ((rows - 1) * stride + cols) * 4;
}

Status check_params(const GemmParams& p, GemmProblem* problem) {
  if (!valid_dim(p.m) || !valid_dim(p.n) || !valid_dim(p.k)) {
    return invalid("m, n and k must be 1 to 2^24");
  }
  GemmWeights type;
  if (!weight_type(p.weight_type, &type))
    return invalid("weight_type must be f32, f16, bf16 or i8");
  if (static_cast<uint8_t>(p.activation) > static_cast<uint8_t>(Activation::kSigmoid)) {
    return invalid("unknown activation");
  }
  if (p.x == nullptr || p.y == nullptr || p.packed_weights == nullptr) {
    return invalid("x, y and packed_weights must not be null");
  }
  const size_t x_stride = p.x_stride == 0 ? p.k : p.x_stride;
  const size_t y_stride = p.y_stride == 0 ? p.n : p.y_stride;
  if (x_stride < p.k || y_stride < p.n) return invalid("x_stride must be >= k and y_stride >= n");
  const size_t x_bytes = span_bytes(p.m, p.k, x_stride), y_bytes = span_bytes(p.m, p.n, y_stride);
  if (x_bytes == 0 || y_bytes == 0) return invalid("x or y spans more than the address space");
  const size_t need = packed_dense_weights_bytes(p.weight_type, p.n, p.k);
  if (need == 0) return invalid("the packed weights would span more than the address space");
  if (p.packed_weights_bytes < need) {
    return Status::error(StatusCode::kInvalidArgument,
                         "gemm: packed_weights_bytes is %zu, %zu needed for n = %zu, k = %zu",
                         p.packed_weights_bytes, need, p.n, p.k);
  }
  const size_t align = type == GemmWeights::kF16 || type == GemmWeights::kBF16 ? 2 : 4;
  if (reinterpret_cast<uintptr_t>(p.packed_weights) % align != 0) {
    return invalid("packed_weights must be aligned to its element (4 bytes for f32 and i8)");
  }
  if (overlap(p.y, y_bytes, p.x, x_bytes) || overlap(p.y, y_bytes, p.packed_weights, need) ||
      (p.bias != nullptr && overlap(p.y, y_bytes, p.bias, p.n * 4))) {
    return invalid("y must not overlap x, the weights or the bias");
  }
  problem->m = p.m;
  problem->n = p.n;
  problem->k = p.k;
  problem->panels = (p.n + kGemmPanel - 1) / kGemmPanel;
  problem->type = type;
  problem->activation = static_cast<kernels::Activation>(p.activation);
  problem->x = p.x;
  problem->x_stride = x_stride;
  problem->weights = p.packed_weights;
  problem->scales =
      type == GemmWeights::kI8
          ? reinterpret_cast<const float*>(static_cast<const uint8_t*>(p.packed_weights) +
                                           kernels::gemm_scales_offset(problem->panels, p.k))
          : nullptr;
  problem->bias = p.bias;
  problem->y = p.y;
  problem->y_stride = y_stride;
  return Status();
}

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

size_t packed_dense_weights_bytes(DType type, size_t out, size_t in) {
  GemmWeights internal;
  if (!weight_type(type, &internal) || !valid_dim(out) || !valid_dim(in)) return 0;
  const size_t panels = (out + kGemmPanel - 1) / kGemmPanel;
  if (panels * kGemmPanel > SIZE_MAX / 4 / in) return 0;  // 32-bit targets
  return kernels::gemm_packed_bytes(internal, out, in);
}

Result<size_t> pack_dense_weights(DType type, const float* w, size_t out, size_t in, void* packed,
                                  size_t packed_bytes, const float* scales) {
  GemmWeights internal;
  if (!weight_type(type, &internal)) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: weights can be f32, f16, bf16 or i8, not %s",
                         dtype_name(type));
  }
  const size_t need = packed_dense_weights_bytes(type, out, in);
  if (need == 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: out and in must be 1 to 2^24 (got %zu x %zu)", out,
                         in);
  }
  if (w == nullptr || packed == nullptr) {
    return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights: null w or packed");
  }
  if (packed_bytes < need) {
    return Status::error(StatusCode::kResourceExhausted,
                         "pack_dense_weights: buffer of %zu bytes, %zu needed", packed_bytes, need);
  }
  if (reinterpret_cast<uintptr_t>(packed) % 4 != 0) {
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: packed must be 4-byte aligned");
  }
  kernels::PackFailure failure;
  if (!kernels::gemm_pack(internal, w, out, in, scales, static_cast<uint8_t*>(packed), &failure)) {
    if (failure.col == in) {
      return Status::error(StatusCode::kInvalidArgument, "pack_dense_weights: scales[%zu]: %s",
                           failure.row, failure.why);
    }
    return Status::error(StatusCode::kInvalidArgument,
                         "pack_dense_weights: w[%zu][%zu] cannot be stored as %s (%s)", failure.row,
                         failure.col, dtype_name(type), failure.why);
  }
  return need;
}

Status gemm(const GemmParams& params, ParallelFor* parallel) {
  return gemm_with_kernels(params, kernels::best_kernels<kernels::GemmKernelTable>(), parallel);
}

Status gemm_with_kernels(const GemmParams& params, const GemmKernelTable* table,
                         ParallelFor* parallel) {
  GemmProblem problem;
  FOCAL_RETURN_IF_ERROR(check_params(params, &problem));
  Plan plan;
  plan.problem = &problem;
  // check_params sets problem.type whenever it returns ok; the analyzer cannot see that
  // Status::error (status.cpp) never returns ok.
  // NOLINTNEXTLINE(clang-analyzer-core.uninitialized.ArraySubscript)
  plan.run_task = table->run_task[static_cast<int>(problem.type)];
  plan.row_block =
      problem.m <= kernels::kGemvMaxRows ? problem.m : table->tile_rows * kTilesPerTask;
  plan.panel_blocks = (problem.panels + kPanelsPerTask - 1) / kPanelsPerTask;
  const size_t row_blocks = (problem.m + plan.row_block - 1) / plan.row_block;
  const size_t tasks = row_blocks * plan.panel_blocks;
  if (parallel != nullptr && parallel->workers() > 1 && tasks > 1) {
    parallel->run(tasks, run_one_task, &plan);
  } else {
    for (size_t t = 0; t < tasks; ++t) run_one_task(&plan, t, 0);
  }
  return Status();
}

Status gemm_reference(const GemmParams& params) {
  GemmProblem problem;
  FOCAL_RETURN_IF_ERROR(check_params(params, &problem));
  kernels::gemm_reference_packed(problem);
  return Status();
}

const char* gemm_isa() { return kernels::best_kernels<kernels::GemmKernelTable>()->isa; }

}  // namespace focal
