// Internal interface of the integer GEMM (W8A8): int8 activations times int8 weights,
// int32 sums, then the f32 epilogue of the GEMM family (gemm/gemm_kernels.h). The public
// interface and the packed layout are in include/focal/gemm.h (int8_activations).
//
// A run has two phases:
//  1. quantize: each row of x to int8 with its own symmetric scale (per token), into
//     the caller's workspace, rows of `groups * 8` bytes (zeros past K);
//  2. tasks (the GEMM family's split: blocks of rows x blocks of 32-output panels): for
//     each panel and each tile of rows, the variant's micro-kernel computes the int32
//     sums of the tile's rows against the panel's 32 outputs, exactly; the driver
//     (qgemm_driver.hpp) removes the activation offset, multiplies by the row's scale,
//     and the GEMM family's epilogue applies the weights' scales, the bias and the
//     activation over the task's block of y.
//
// Variants are per instruction, not per kernel set: AVX-512 VNNI and the aarch64 dot
// products need CPU features beyond their kernel set's baseline, so each variant is its
// own translation unit with its own flags (engine/CMakeLists.txt: the QGEMM variants of
// each focal_isa() line), its own flag in dispatch/cpu_isa.h (set by cpu_isa.cpp) and one
// chooser (dispatch/qgemm_dispatch.cpp). Integer sums are exact, so every
// variant's int32 sums equal the reference's bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm/gemm_kernels.h"

namespace focal {
namespace kernels {

// Weights and activations come in groups of 8 consecutive k (see include/focal/gemm.h):
// an output's group is 8 bytes, a panel's group 256.
constexpr size_t kQGemmGroup = 8;
constexpr size_t kQGemmPanelGroupBytes = kGemmPanel * kQGemmGroup;
// Largest K: |sum| <= K * 255 * 128 must stay below 2^31 with the u8 offset of VNNI.
constexpr size_t kQGemmMaxK = size_t(1) << 16;
// Largest register tile of rows any variant uses (the driver's int32 tile buffer).
constexpr size_t kQGemmMaxTileRows = 16;

inline size_t qgemm_groups(size_t k) { return (k + kQGemmGroup - 1) / kQGemmGroup; }

// Byte offsets in the packed weights: panels, then f32 scales, then int32 column sums.
inline size_t qgemm_scales_offset(size_t panels, size_t k) {
  return gemm_round_up(panels * qgemm_groups(k) * kQGemmPanelGroupBytes, 64);
}
inline size_t qgemm_sums_offset(size_t panels, size_t k) {
  return qgemm_scales_offset(panels, k) + panels * kGemmPanel * 4;
}
inline size_t qgemm_packed_bytes(size_t n, size_t k) {
  const size_t panels = (n + kGemmPanel - 1) / kGemmPanel;
  return qgemm_sums_offset(panels, k) + panels * kGemmPanel * 4;
}
// Workspace of a run: the quantized rows (each groups * 8 bytes), then one f32 scale per row.
inline size_t qgemm_row_bytes(size_t k) { return qgemm_groups(k) * kQGemmGroup; }
inline size_t qgemm_workspace_bytes(size_t m, size_t k) {
  return gemm_round_up(m * qgemm_row_bytes(k), 64) + m * 4;
}

// A checked problem, pointers resolved.
struct QGemmProblem {
  GemmProblem gemm;           // sizes, x, y, bias, activation; scales = the weights' scales
  size_t groups;              // ceil(k / 8)
  const int8_t* weights;      // the panels
  const int32_t* column_sums; // [panels * 32]: sum over k of q[n][k] (the offset correction)
  uint8_t* a;                 // workspace: quantized rows, row r at a + r * a_stride
  size_t a_stride;            // bytes: groups * 8
  float* a_scales;            // workspace: [m] per-row scales (real x = scale * q)
};

// int32 sums of a tile: c[r][j] = sum_k a[r][k] * w[32 * panel + j][k] for r < rows,
// j < 32, over all groups, with a's bytes as the variant stores them (q + offset).
// a: the tile's first row; rows <= the variant's tile_rows; c: [tile_rows][32].
using QGemmTileFn = void (*)(const uint8_t* a, size_t a_stride, size_t rows,
                             const int8_t* panel, size_t groups, int32_t* c);
// Phase 1 for rows [row_begin, row_end): see quantize_row_reference().
using QGemmQuantizeFn = void (*)(const QGemmProblem& p, size_t row_begin, size_t row_end);
// Phase 2 for one task: sums, offset, row scale into y, then `epilogue`.
using QGemmTaskFn = void (*)(const QGemmProblem& p, const GemmTask& t,
                             const GemmKernelTable& epilogue);

struct QGemmKernelTable {
  const char* isa;           // "avx512vnni", "avx2", "sse2", "neon64_i8mm", ...
  uint8_t activation_offset; // 128: rows stored as q + 128 (u8 x s8 instructions); else 0
  size_t tile_rows;          // rows per micro-kernel call (<= kQGemmMaxTileRows)
  QGemmTileFn tile;
  QGemmQuantizeFn quantize;
  QGemmTaskFn run_task;
};

// ---- The reference twin (reference.cpp) -----------------------------------------------

// Row quantization, the same bits on every variant: amax = max |x[k]|; if amax is 0 the
// row is all q = 0 with scale 0; if it is not finite, q = 0 and the scale is NaN (so the
// outputs are NaN, as f32 would give); else inv = 127 / amax (f32), q[k] = rint(x[k] *
// inv) (nearest even), clamped to [-127, 127], scale = amax / 127. Bytes past K are q = 0.
// Stored as uint8 q + offset.
float quantize_row_reference(const float* x, size_t k, uint8_t offset, uint8_t* q_out);

// The exact int32 sums of the quantized problem: sums[r * n + j] = sum_k q_x[r][k] *
// q_w[j][k], with the quantized rows in p.a (offset 0).
void qgemm_sums_reference(const QGemmProblem& p, int32_t* sums);

// The whole GEMM: quantize (offset 0), exact sums, y = float(sum) * row scale * weight
// scale + bias, then apply_activation().
void qgemm_reference(const QGemmProblem& p);

// int8-dot packing (packing.cpp): W [n][k] f32 into qgemm_packed_bytes() bytes; scales
// as in gemm_pack() (int8). Checks everything first; a refusal writes nothing.
bool qgemm_pack(const float* w, size_t n, size_t k, const float* scales, uint8_t* packed,
                PackFailure* failure);
// The same from weights already quantized (q [n][k] and their scales [n]): for tests of
// extreme values (q may be -128 here, which qgemm_pack never writes).
void qgemm_pack_quantized(const int8_t* q, size_t n, size_t k, const float* scales,
                          uint8_t* packed);
// Whether packed bytes are a well-formed int8-dot matrix: zero padding past N and K,
// finite scales (> 0 for real outputs, 0 for padding), column sums that match the panels.
// Returns false with the first fault described in `why` (a static string).
bool qgemm_packed_consistent(const uint8_t* packed, size_t n, size_t k, const char** why);

// ---- Variants ---------------------------------------------------------------------------

// Every variant this binary has (reference-checked by the tests), best first; null-ended.
// Whether the CPU can run each: qgemm_variant_usable().
const QGemmKernelTable* const* qgemm_variants();
bool qgemm_variant_usable(const QGemmKernelTable& table);
// The best usable variant, chosen on the first call.
const QGemmKernelTable& best_qgemm_kernels();

}  // namespace kernels
}  // namespace focal
