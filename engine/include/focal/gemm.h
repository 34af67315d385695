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
// A panel row (32 consecutive outputs for one k: 32 to 128 bytes) is what the register
// tiles read per k step, whole (AVX-512 8 x 32) or in parts (AVX2 6 x 16, NEON 8 x 8),
// so a panel streams front to back; decode (M <= 4) reads whole rows of a few panels
// at once, each weight byte exactly once, in address order.
//
// f16 and bf16 are rounded to nearest even; int8 is q = round(w / scale) clamped to
// [-127, 127], with scale = max_k |W[n, k]| / 127 per output unless the caller gives the
// scales. Sums are f32 over increasing k (int8: of x * q, times the scale at the end;
// for M <= 4, k mod S in S <= 4 interleaved partial sums added pairwise), then bias,
// then the activation. Every output element is computed by one task in a fixed order,
// so results are bitwise identical for any number of workers.
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

struct GemmParams {
  size_t m = 1;                     // rows of x and y (tokens)
  size_t n = 1;                     // outputs
  size_t k = 1;                     // inputs
  DType weight_type = DType::kF32;  // kF32, kF16, kBF16 or kI8
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
};

// Checks the params and computes y with the best kernel for this CPU, splitting the
// work over `parallel` when given. x and y may have any float alignment. Allocates
// nothing and needs no workspace. M <= 4 takes the decode (GEMV) path, which streams
// the weights once; results depend on M and the CPU's instruction set, never on the
// number of workers.
Status gemm(const GemmParams& params, ParallelFor* parallel = nullptr);

// The scalar reference twin (plain loops over the packed weights, f32 sums in k order).
Status gemm_reference(const GemmParams& params);

// Which implementation gemm() runs here: "avx512", "avx2", "sse2", "neon64", "neon",
// "scalar".
const char* gemm_isa();

}  // namespace focal
