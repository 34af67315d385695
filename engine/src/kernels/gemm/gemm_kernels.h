// Internal interface of the GEMM kernel family (the public one, with the packed weight
// layout, is include/focal/gemm.h). The work is cut into tasks, each a block of rows
// times a range of 32-output panels; every task computes its outputs completely (all
// of K, then the epilogue), so no two tasks touch the same output.
//
// Two paths, chosen by the problem's M only (never by the task split or the workers):
//  - GEMV (M <= kGemvMaxRows, decode): the task's panels stream once, front to back;
//    the rows' sums are split over k mod S into S partial sums per output (independent
//    FMA chains), added in a fixed order at the end;
//  - tiled: register tiles of tile_rows x tile_cols, one FMA chain per output in
//    increasing k, K cut into blocks of k_block so a panel's block stays in cache while
//    every row tile of the task uses it; partial sums wait in y between blocks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dense/dense_kernels.h"
#include "focal/tensor.h"

namespace focal {
namespace kernels {

constexpr size_t kGemmPanel = 32;  // outputs per packed panel (include/focal/gemm.h)
constexpr size_t kGemvMaxRows = 4;

enum class GemmWeights : uint8_t { kF32 = 0, kF16 = 1, kBF16 = 2, kI8 = 3 };
// The weight types are the tensor types of the same name (focal/tensor.h): one index.
static_assert(int(GemmWeights::kF32) == int(DType::kF32) && int(GemmWeights::kF16) == int(DType::kF16) &&
                  int(GemmWeights::kBF16) == int(DType::kBF16) && int(GemmWeights::kI8) == int(DType::kI8),
              "GemmWeights must number the weight types as DType does");
constexpr int kGemmWeightTypes = 4;

inline size_t gemm_round_up(size_t value, size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Bytes per stored weight.
inline size_t gemm_weight_bytes(GemmWeights type) {
  return type == GemmWeights::kF32 ? 4 : type == GemmWeights::kI8 ? 1 : 2;
}

// Byte offset of the int8 scales after the panels.
inline size_t gemm_scales_offset(size_t panels, size_t k) {
  return gemm_round_up(panels * k * kGemmPanel, 64);
}

// A checked problem, pointers resolved (strides filled in, scales found).
struct GemmProblem {
  size_t m, n, k;
  size_t panels;  // ceil(n / 32)
  GemmWeights type;
  Activation activation;
  const float* x;
  size_t x_stride;
  const void* weights;  // the panels
  const float* scales;  // int8: [panels * 32]; else null
  const float* bias;    // [n] or null
  float* y;
  size_t y_stride;
};

// Rows [row_begin, row_end) by outputs of panels [panel_begin, panel_end).
struct GemmTask {
  size_t row_begin, row_end;
  size_t panel_begin, panel_end;
};

using GemmTaskFn = void (*)(const GemmProblem& problem, const GemmTask& task);
// y[row][n0, n1) = act(y * scale + bias) for rows [row_begin, row_end): the epilogue
// every task runs over its block (scales: the int8 weights' or null); the int8-activation
// GEMM (qgemm/qgemm_kernels.h) reuses it after its integer sums.
using GemmEpilogueFn = void (*)(const GemmProblem& problem, size_t row_begin, size_t row_end,
                                size_t n0, size_t n1);

struct GemmKernelTable {
  const char* isa;
  size_t tile_rows;                       // rows of the register tile
  size_t tile_cols;                       // outputs of the register tile (divides 32)
  size_t k_block;                         // k steps per block on the tiled path
  GemmTaskFn run_task[kGemmWeightTypes];  // by GemmWeights; f16 and bf16 null where not built
  GemmEpilogueFn epilogue;
};


// The reference twin: for each output, an f32 sum over k in order of x times the stored
// weight (int8: times q, then the scale), plus bias, then apply_activation().
void gemm_reference_packed(const GemmProblem& problem);

// Packing (packing.cpp): W [n][k] f32 into gemm_packed_bytes() bytes of the packed
// layout; `scales` as in pack_dense_weights(). When a value cannot be stored it writes
// nothing, returns false and says which: W[row][col], or scales[row] (col == k).
struct PackFailure {
  size_t row, col;
  float value;
  const char* why;  // "not finite", "|w| >= 65520", ...
};
bool gemm_pack(GemmWeights type, const float* w, size_t n, size_t k, const float* scales,
               uint8_t* packed, PackFailure* failure);
size_t gemm_packed_bytes(GemmWeights type, size_t n, size_t k);
// The check gemm_pack() runs before writing anything (also the int8-dot packing's).
bool gemm_check_weights(GemmWeights type, const float* w, size_t n, size_t k, const float* scales,
                        PackFailure* failure);
// int8 weights: output row n's scale and its q, clamped to [-127, 127]. With the
// caller's scales, scale = scales[n] and q = rint(w / scale); without, the one row
// quantizer's (focal/internal/int8_row.h: scale = max |w| / 127, q = rint(w * 127 /
// max |w|), all 0 for an all-zero row).
struct Int8WeightRow {
  float scale;
  float inv;  // 127 / max |w| for the row's own scale, 0 otherwise
};
Int8WeightRow int8_weight_row(const float* w_row, size_t k, const float* scales, size_t n);
int8_t int8_weight(float value, const Int8WeightRow& row);

}  // namespace kernels
}  // namespace focal
