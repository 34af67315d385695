// Dense layers on the caller's buffers: y = act(x . W^T + bias), f32 activations, with
// the weights stored as f32, IEEE half, bfloat16 or int8 with one symmetric scale per
// output (real weight = scale[n] * q[n, k]).
//
//   y[m, n] = act(sum_k x[m, k] * W[n, k] + bias[n])      m < M, n < N, k < K
//
// W is PyTorch's nn.Linear layout, [out = N, in = K]. It is not read in that layout:
// pack_dense_weights() converts it once (the converter calls it when writing a .focal
// file, so the file holds exactly what the kernels read) into column panels.
//
// Packed layout (the same bytes for every target; written on a host, read anywhere):
//   P = ceil(N / 32) panels of 32 outputs each; panel p holds outputs 32p .. 32p + 31.
//   panels: element [p][k][j], j < 32, is W[32p + j][k] in the stored type (`e` bytes:
//           4 for f32, 2 for f16 and bf16, 1 for int8), at byte ((p * K + k) * 32 + j) * e.
//           Outputs past N (the tail of the last panel) are zero.
//   int8 only: then, at byte round_up(P * K * 32, 64), float scale[P * 32] (0 past N).
//   Total: packed_dense_weights_bytes(); no header, nothing else.
// Int8-dot layout (int8 weights for int8 activations, pack_dense_weights_int8_dot()):
//   G = ceil(K / 8) groups of 8 consecutive k; the same P panels of 32 outputs.
//   panels: q of W[32p + j][8g + b], b < 8, at byte ((p * G + g) * 32 + j) * 8 + b: each
//           output's 8 k of a group are adjacent, as AVX-512 VNNI (vpdpbusd, 4 k per
//           int32 lane), aarch64 sdot (4 k per lane) and smmla (2 outputs x 8 k per
//           operand) read them. Zero past N and past K.
//   then, at byte round_up(P * G * 256, 64): float scale[P * 32] (0 past N),
//   then int32 column_sum[P * 32] = sum_k q[n][k], which folds the +128 offset of the
//   unsigned activations vpdpbusd multiplies into the epilogue exactly. The loader
//   recomputes the sums and checks the padding (a forged file cannot change results
//   through them). Total: packed_dense_weights_int8_dot_bytes().
// A panel row (32 consecutive outputs for one k: 32 to 128 bytes) is what the register
// tiles read per k step, whole (AVX-512 8 x 32) or in parts (AVX2 6 x 16, NEON 8 x 8),
// so a panel streams front to back; decode (M <= 4) reads whole rows of a few panels
// at once, each weight byte exactly once, in address order.
//
// f16 and bf16 are rounded to nearest even; int8 is q = rint(w * 127 / amax) clamped to
// [-127, 127], with scale = amax / 127 per output (amax = max_k |W[n, k]|; an all-zero
// output has q = 0 and scale 0), the same quantizer as int8 activations', unless the
// caller gives the scales: then q = rint(w / scale). Sums are f32 over increasing k (int8: of x * q, times the scale at the end;
// for M <= 4, k mod S in S <= 4 interleaved partial sums added pairwise), then bias,
// then the activation. Every output element is computed by one task in a fixed order,
// so results are bitwise identical for any number of workers.
//
// Int8 activations (GemmParams::int8_activations, W8A8): each row of x is quantized to
// int8 with its own symmetric scale (amax = max_k |x[m, k]|, q = rint(x * 127 / amax)
// clamped to [-127, 127], scale amax / 127; an all-zero row has q = 0, a row with a NaN
// or infinity gives NaN outputs), the int32 sums of q_x * q_w are exact on every
// instruction set (AVX-512 VNNI, AVX2, SSE2, aarch64 i8mm / dotprod / NEON, armv7 NEON,
// Helium, scalar: the same int32 bits everywhere), then y = act(sum * scale_x[m] *
// scale_w[n] + bias[n]). K is at most kMaxInt8GemmK.
//
// Int4 weights (weight_type kI4, W4A8): q in [-8, 7] in groups of G = int4_group
// consecutive k (32, 64 or 128), one f16 scale per output and group: real weight =
// scale[n][g] * q[n][k]. pack_dense_weights_int4() picks each scale as the one of
// amax / d, d in {7, 7.25, ..., 8.5} (amax = max |w| of the output's group), rounded to
// f16, that gives the least squared error, with q = rint(w / scale) clamped to [-8, 7]
// (d = 7 is amax / 7, which clips nothing; on uniform random weights the search lowers
// the stored weights' RMS error by 10%, 0.0355 against 0.0394 for amax / 7 on [-1, 1):
// tests/test_q4gemm.cpp prints both).
// Int4 layout (the same bytes everywhere; Q = ceil(K / 4) quads of 4 consecutive k,
//   P = ceil(N / 32) panels of 32 outputs, NG = ceil(K / G) groups):
//   panel p (outputs 32p .. 32p + 31) at byte p * panel_bytes, panel_bytes = Q * 64 + NG * 64,
//   one contiguous stream: its groups in k order, group g at g * (G / 4 * 64 + 64) in the
//   panel: the group's quads (G / 4, the last group only the quads left: a ragged tail
//   when G does not divide K), 64 bytes each, then 32 f16 scales (64 bytes, output j at
//   byte 2j). Quad byte b (0..63) holds, as u = q + 8, output 32p + b / 4 in its low
//   nibble and output 32p + 16 + b / 4 in its high nibble, both at k = 4 * quad + b % 4:
//   one 64-byte load is 16 outputs x 4 k per nibble half, the four bytes of an int32 lane
//   of vpdpbusd / sdot. Nibbles past N and K are 8 (q = 0), scales past N are 0.
//   Total: packed_dense_weights_int4_bytes().
// The activation rows are quantized to int8 as above (per row), the products of each
// group summed exactly in int32 (u x q_x less 8 x the group's sum of q_x), then on every
// instruction set y = act(sum over g, in order, of fmaf(float(sum_g), scale[n][g], .)
// times scale_x[m] + bias[n]). M <= 4 (decode) reads every weight byte once, in address
// order; larger M reuses each panel for every 4 rows of a task.
#pragma once

#include <cstddef>
#include <cstdint>

#include "focal/activation.h"
#include "focal/parallel.h"
#include "focal/status.h"
#include "focal/tensor.h"

namespace focal {

// Sizes accepted by every entry point: M, N, K from 1 to kMaxGemmDim.
constexpr size_t kMaxGemmDim = size_t(1) << 24;
// Largest K with int8 activations (the int32 sums cannot overflow below it).
constexpr size_t kMaxInt8GemmK = size_t(1) << 16;

// Bytes of the packed form of an [out, in] matrix stored as `type` (kF32, kF16, kBF16 or
// kI8); 0 if the type or a size is not supported.
size_t packed_dense_weights_bytes(DType type, size_t out, size_t in);

// Packs w ([out][in] row-major f32, PyTorch's layout) into `packed` (packed_bytes >=
// packed_dense_weights_bytes(), 4-byte aligned; 64 recommended) in the layout above and
// returns the number of bytes written. int8: `scales` ([out], each finite and > 0) are
// used as given when not null, else computed from w. Refuses non-finite weights (f16,
// bf16, int8) and values that overflow f16 or bf16, naming the element.
Result<size_t> pack_dense_weights(DType type, const float* w, size_t out, size_t in, void* packed,
                                  size_t packed_bytes, const float* scales = nullptr);

// Bytes of the int8-dot form of an [out, in] matrix (layout above); 0 if a size is not
// supported (in > kMaxInt8GemmK included).
size_t packed_dense_weights_int8_dot_bytes(size_t out, size_t in);

// Packs w ([out][in] f32) as int8 in the int8-dot layout for int8 activations; the same
// quantization (scales computed or given) and refusals as pack_dense_weights(kI8).
Result<size_t> pack_dense_weights_int8_dot(const float* w, size_t out, size_t in, void* packed,
                                           size_t packed_bytes, const float* scales = nullptr);

// Bytes of the int4 form of an [out, in] matrix with `group` k per scale (layout above);
// 0 if a size or the group (32, 64, 128) is not supported.
size_t packed_dense_weights_int4_bytes(size_t out, size_t in, size_t group);

// Packs w ([out][in] f32) as int4 in groups of `group` k (scales chosen as above) into
// `packed` (>= packed_dense_weights_int4_bytes(), 4-byte aligned). Refuses non-finite
// weights and |w| / 7 beyond f16's range, naming the element; a refusal writes nothing.
Result<size_t> pack_dense_weights_int4(const float* w, size_t out, size_t in, size_t group,
                                       void* packed, size_t packed_bytes);

struct GemmParams {
  size_t m = 1;                     // rows of x and y (tokens)
  size_t n = 1;                     // outputs
  size_t k = 1;                     // inputs
  DType weight_type = DType::kF32;  // kF32, kF16, kBF16, kI8 or kI4
  Activation activation = Activation::kNone;

  const float* x = nullptr;  // [m][k], row i at x + i * x_stride
  size_t x_stride = 0;       // elements; 0: k
  // pack_dense_weights() output for (n, k) and weight_type, aligned to its element (2
  // bytes for f16 and bf16, else 4; 64, as in a .focal file, is best); used in place.
  const void* packed_weights = nullptr;
  size_t packed_weights_bytes = 0;  // its size, checked against (type, n, k)
  const float* bias = nullptr;      // [n], or null
  float* y = nullptr;               // [m][n], row i at y + i * y_stride; must not overlap x
  size_t y_stride = 0;              // elements; 0: n

  // Int8 activations (see the top of this file): weight_type must be kI8 and
  // packed_weights pack_dense_weights_int8_dot()'s output; the quantized rows go to
  // `workspace` (gemm_workspace_bytes() bytes, 4-byte aligned, not overlapping x or y).
  bool int8_activations = false;
  // Int4 weights (weight_type kI4): pack_dense_weights_int4()'s output for this group
  // size; the activations are quantized to int8 always, into `workspace`.
  size_t int4_group = 0;
  void* workspace = nullptr;
  size_t workspace_bytes = 0;
};

// Workspace gemm() needs for these params: 0 for f32 activations; with int8 activations
// m * round_up(k, 8) bytes plus alignment and one float per row; int4 weights add one
// int32 per row and group.
size_t gemm_workspace_bytes(const GemmParams& params);

// Checks the params and computes y with the best kernel for this CPU, splitting the
// work over `parallel` when given. x and y may have any float alignment. Allocates
// nothing and needs no workspace. M <= 4 takes the decode (GEMV) path, which streams
// the weights once; results depend on M and the CPU's instruction set, never on the
// number of workers.
Status gemm(const GemmParams& params, ParallelFor* parallel = nullptr);

// The scalar reference twin (plain loops over the packed weights, f32 sums in k order;
// int8 activations: the same quantization, exact int32 sums, the same epilogue order).
Status gemm_reference(const GemmParams& params);

// Whether this engine runs dense weights of `type`: kF32 and kI8 always; kF16 and kBF16
// unless built without them (FOCAL_HALF_WEIGHTS), kI4 likewise (FOCAL_INT4_WEIGHTS), both
// off on bare metal by default. gemm() and the loader refuse the others (kUnsupported).
bool gemm_weights_built(DType type);

// Which implementation gemm() runs here: "avx512", "avx2", "sse2", "neon64", "neon",
// "scalar".
const char* gemm_isa();
// Which int8-activation kernel gemm() runs here: "amx", "avx512vnni", "avx2", "sse2",
// "neon64_i8mm", "neon64_dotprod", "neon64", "neon", "mve", "scalar".
const char* gemm_int8_isa();
// Which int4-weight kernel gemm() runs here: "avx512vnni", "avx2", "neon64_dotprod", "scalar".
const char* gemm_int4_isa();

}  // namespace focal
