// Internal interface of the int4 GEMM/GEMV (W4A8): weights of 4 bits in groups along K,
// one f16 scale per output and group; activations quantized per row to int8 at run time
// (as the int8 GEMM does, qgemm/qgemm_kernels.h); int32 sums per group; f32 after that.
// The public interface and the byte layout are in include/focal/gemm.h (Int4 weights).
//
// A run has two phases:
//  1. quantize: each row of x to int8 (quantize_row_reference's bits) into the caller's
//     workspace, and the int32 sum of the row's q over each group of K;
//  2. tasks (the GEMM family's split: blocks of rows x blocks of 32-output panels): for
//     each panel and each block of up to 4 rows, the variant computes per group the exact
//     int32 sums of the stored nibbles u = q + 8 times the row's q, removes the offset
//     (8 x the row's group sum), and adds float(sum) x scale into one f32 sum per output,
//     group after group (an FMA, so each variant with FMA matches the reference's bits);
//     the driver (q4gemm_driver.hpp) multiplies by the row's scale into y and the GEMM
//     family's epilogue adds the bias and applies the activation.
//
// Decode (M <= 4) reads each weight byte once, front to back: a panel is one contiguous
// stream of its groups' nibbles and scales. Variants are per instruction, like the int8
// GEMM's (engine/CMakeLists.txt: the Q4GEMM variants of each focal_isa() line;
// dispatch/q4gemm_dispatch.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {

// A quad: 4 consecutive k of a panel's 32 outputs, 128 nibbles in 64 bytes.
constexpr size_t kQ4QuadK = 4;
constexpr size_t kQ4QuadBytes = 64;
constexpr size_t kQ4ScaleBytes = kGemmPanel * 2;  // a group's 32 f16 scales
constexpr uint8_t kQ4Offset = 8;                 // stored nibble u = q + 8, q in [-8, 7]
constexpr size_t kQ4MaxRows = 4;                 // rows per panel call (decode: all of them)
// Software prefetch distance in a panel's stream, bytes: the f32 GEMV's for its 8- and
// 16-bit weights (gemm/gemm_simd.hpp), one request per quad (a cache line).
constexpr size_t kQ4PrefetchBytes = 2048;

inline bool q4_group_supported(size_t group) { return group == 32 || group == 64 || group == 128; }
inline size_t q4_groups(size_t k, size_t group) { return (k + group - 1) / group; }
inline size_t q4_quads(size_t k) { return (k + kQ4QuadK - 1) / kQ4QuadK; }
// Bytes from one group's start to the next (a full group: its quads, then its scales).
inline size_t q4_group_stride(size_t group) { return group / kQ4QuadK * kQ4QuadBytes + kQ4ScaleBytes; }
// Quads of group g: group / 4, but the last group holds only the quads left of K.
inline size_t q4_group_quads(size_t k, size_t group, size_t g) {
  const size_t left = q4_quads(k) - g * (group / kQ4QuadK);
  return left < group / kQ4QuadK ? left : group / kQ4QuadK;
}
inline size_t q4_panel_bytes(size_t k, size_t group) {
  return q4_quads(k) * kQ4QuadBytes + q4_groups(k, group) * kQ4ScaleBytes;
}
inline size_t q4_packed_bytes(size_t n, size_t k, size_t group) {
  return (n + kGemmPanel - 1) / kGemmPanel * q4_panel_bytes(k, group);
}
// Workspace: the int8 GEMM's (quantized rows, row scales), then int32 group sums [m][groups].
inline size_t q4_group_sums_offset(size_t m, size_t k) {
  return gemm_round_up(qgemm_workspace_bytes(m, k), 64);
}
inline size_t q4_workspace_bytes(size_t m, size_t k, size_t group) {
  return q4_group_sums_offset(m, k) + m * q4_groups(k, group) * 4;
}

// A checked problem, pointers resolved.
struct Q4GemmProblem {
  QGemmProblem rows;     // gemm: sizes, x, y, bias, activation (scales null); a, a_stride,
                         // a_scales: the quantized rows (offset 0: q as int8 bits)
  size_t group;          // k per scale: 32, 64 or 128
  size_t groups;         // ceil(k / group)
  size_t panel_bytes;    // q4_panel_bytes()
  const uint8_t* weights;
  int32_t* group_sums;   // workspace [m][groups]: sum of the row's q over each group
};

// f[r][j] = sum over groups g, in order, of float(sum_k q_x[r][k] q_w[32 panel + j][k]) *
// scale[j][g] (fmaf), for r < rows (<= 4) of the rows starting at row0; f: [4][32].
using Q4PanelFn = void (*)(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, size_t rows,
                           float* f);
using Q4QuantizeFn = void (*)(const Q4GemmProblem& p, size_t row_begin, size_t row_end);
using Q4TaskFn = void (*)(const Q4GemmProblem& p, const GemmTask& t, const GemmKernelTable& epilogue);

struct Q4GemmKernelTable {
  const char* isa;  // "avx512vnni", "avx2", "sse2", "neon64_dotprod", "neon64", "neon", "scalar"
  Q4PanelFn panel;
  Q4QuantizeFn quantize;
  Q4TaskFn run_task;
};

// ---- The reference twin (reference.cpp) -----------------------------------------------

// The stored q (-8..7) of output n, input i, and the f32 value of its scale (0 past N).
int32_t q4_stored_q(const Q4GemmProblem& p, size_t n, size_t i);
float q4_stored_scale(const Q4GemmProblem& p, size_t n, size_t g);
// Phase 1 (quantize_row_reference with offset 0, then the group sums), rows [begin, end).
void q4_quantize_rows_reference(const Q4GemmProblem& p, size_t row_begin, size_t row_end);
// The whole GEMM element by element: phase 1, then per output the group sums in order.
void q4gemm_reference(const Q4GemmProblem& p);

// ---- Packing (packing.cpp) ------------------------------------------------------------

// Per output and group: the f16 scale and q = clamp(rint(w / scale), -8, 7). The scale is
// the one of the candidates amax / d, d = 7, 7.25, ..., 8.5, rounded to f16, whose
// q gives the least squared error (d = 7 is amax / 7, the candidate that clips nothing).
// Refuses (false, `failure` set) non-finite weights and amax / 7 above f16's range.
bool q4gemm_pack(const float* w, size_t n, size_t k, size_t group, uint8_t* packed,
                 PackFailure* failure);
// The same with only amax / 7 (to measure what the search gains).
bool q4gemm_pack_amax(const float* w, size_t n, size_t k, size_t group, uint8_t* packed,
                      PackFailure* failure);
// From q already chosen (q [n][k] in -8..7, scales [n][groups] f32, stored as f16): for
// tests of extreme values.
void q4gemm_pack_quantized(const int8_t* q, const float* scales, size_t n, size_t k, size_t group,
                           uint8_t* packed);
// Whether packed bytes are well formed: nibble 8 (q = 0) past N and past K, scales finite
// and >= 0, 0 past N. False with the fault in `why` (a static string).
bool q4gemm_packed_consistent(const uint8_t* packed, size_t n, size_t k, size_t group,
                              const char** why);

// ---- Variants ---------------------------------------------------------------------------

const Q4GemmKernelTable* const* q4gemm_variants();  // best first, null-ended
bool q4gemm_variant_usable(const Q4GemmKernelTable& table);
const Q4GemmKernelTable& best_q4gemm_kernels();

}  // namespace kernels
}  // namespace focal
