// The GEMM kernels, written once against Vec<Arch> (simd/vec_*.hpp) and compiled once
// per instruction set by dispatch/kernel_set_instance.cpp. Everything here is in an anonymous namespace:
// each ISA's translation unit keeps a private copy, so code built with AVX-512 flags can
// never be merged into another ISA's path.
//
// Both paths write raw sums into y first, then run the epilogue (int8 scale, bias,
// activation) over the task's block of y while it is still in L1:
//  - tiled: for each k block, for each panel and each tile_cols-wide part of it, for
//    each tile of tile_rows rows: the register tile accumulates x[rows][k block] times
//    the panel's [k block][part] (reused by every row tile of the task from L1/L2),
//    continuing from the partial sums in y after the first block. x is read in place
//    (rows at x_stride): one broadcast per row and k, one weight vector load per tile
//    vector and k; each output is one FMA chain in increasing k;
//  - GEMV (M <= kGemvMaxRows): a few whole panels at once (one broadcast of x feeds
//    them all), every row's sums over k in S interleaved partial sums (k mod S), so
//    S * rows * vectors independent FMA chains hide the FMA latency while the weights
//    stream once, front to back, with software prefetch for 16- and 8-bit weights.
// Edge tiles (fewer rows or outputs than the tile) go through a small buffer on the
// stack; the rows of a partial tile past the task repeat its last row (never stored).
#pragma once

#include <cstddef>
#include <cstdint>

#include "dense/dense_kernels.h"
#include "gemm/gemm_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

// Stored weights by type: the element type and `width` of them as floats (int8: q).
template <class V, GemmWeights T>
struct WeightLoad;
template <class V>
struct WeightLoad<V, GemmWeights::kF32> {
  using elem = float;
  static typename V::type load(const elem* p) { return V::load(p); }
};
template <class V>
struct WeightLoad<V, GemmWeights::kF16> {
  using elem = uint16_t;
  static typename V::type load(const elem* p) { return V::load_half(p); }
};
template <class V>
struct WeightLoad<V, GemmWeights::kBF16> {
  using elem = uint16_t;
  static typename V::type load(const elem* p) { return V::load_bf16(p); }
};
template <class V>
struct WeightLoad<V, GemmWeights::kI8> {
  using elem = int8_t;
  static typename V::type load(const elem* p) { return V::load_i8(p); }
};

constexpr size_t floor_pow2(size_t x) {
  size_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// kRows x (kVectors * W) register tile; k_block steps per block; kGemvAccumulators:
// how many vector accumulators the GEMV path may keep (registers minus loads/temps).
template <class Arch, size_t kRows, size_t kVectors, size_t kGemvAccumulators>
struct GemmKernels {
  FOCAL_VEC_TYPES(Arch)
  static constexpr size_t kCols = kVectors * W;
  static_assert(kGemmPanel % kCols == 0, "a tile must divide the panel");

  // ---- Epilogue ---------------------------------------------------------------------

  static vec activate(Activation activation, vec z) {
    switch (activation) {
      case Activation::kNone:
        return z;
      case Activation::kRelu:
        return V::max(z, V::zero());
      case Activation::kGeluErf:
        return V::splat(0.5f) * z * (V::splat(1.0f) + V::erf(z * V::splat(0.70710678118654752f)));
      case Activation::kGeluTanh: {
        const vec cube = V::splat(0.044715f) * z * z * z;
        const vec inner = V::splat(0.79788456080286536f) * (z + cube);
        return V::splat(0.5f) * z * (V::splat(1.0f) + V::tanh(inner));
      }
      case Activation::kSilu:
        return V::div(z, V::splat(1.0f) + V::exp(V::zero() - z));  // (NEON: not an estimate)
      case Activation::kTanh:
        return V::tanh(z);
      case Activation::kSigmoid:
        return V::div(V::splat(1.0f), V::splat(1.0f) + V::exp(V::zero() - z));
    }
    return z;
  }

  // y[row][n0, n1) = act(raw * scale + bias) for every row of the task.
  static void epilogue(const GemmProblem& p, size_t row_begin, size_t row_end, size_t n0,
                       size_t n1) {
    if (p.scales == nullptr && p.bias == nullptr && p.activation == Activation::kNone) return;
    for (size_t row = row_begin; row < row_end; ++row) {
      float* y = p.y + row * p.y_stride;
      size_t n = n0;
      for (; n + W <= n1; n += W) {
        vec z = V::load(y + n);
        if (p.scales != nullptr) z = z * V::load(p.scales + n);
        if (p.bias != nullptr) z = z + V::load(p.bias + n);
        V::store(y + n, activate(p.activation, z));
      }
      if (n == n1) continue;
      // The last outputs as one padded vector (scales are padded in the packed weights).
      alignas(64) float z_lanes[W], scale_lanes[W], bias_lanes[W];
      for (size_t i = 0; i < W; ++i) {
        const bool valid = n + i < n1;
        z_lanes[i] = valid ? y[n + i] : 0.0f;
        scale_lanes[i] = valid && p.scales != nullptr ? p.scales[n + i] : 1.0f;
        bias_lanes[i] = valid && p.bias != nullptr ? p.bias[n + i] : 0.0f;
      }
      vec z = V::load(z_lanes);
      if (p.scales != nullptr) z = z * V::load(scale_lanes);
      if (p.bias != nullptr) z = z + V::load(bias_lanes);
      V::store(z_lanes, activate(p.activation, z));
      for (size_t i = 0; n + i < n1; ++i) y[n + i] = z_lanes[i];
    }
  }

  // ---- Tiled path -------------------------------------------------------------------

  // c[kRows][kCols] (row stride ldc) = (accumulate ? c : 0) + x rows . b over kc steps.
  // a: the tile's first row at its first k; rows past `rows` repeat row rows - 1.
  template <GemmWeights T>
  static void tile(size_t kc, const float* a, size_t lda, size_t rows,
                   const typename WeightLoad<V, T>::elem* b, float* c, size_t ldc,
                   bool accumulate) {
    using WL = WeightLoad<V, T>;
    const float* a_row[kRows];
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) a_row[r] = a + (r < rows ? r : rows - 1) * lda;
    vec acc[kRows][kVectors];
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) {
        acc[r][v] = accumulate ? V::load(c + r * ldc + v * W) : V::zero();
      }
    }
    for (size_t k = 0; k < kc; ++k) {
      vec w[kVectors];
#pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) w[v] = WL::load(b + k * kGemmPanel + v * W);
#pragma GCC unroll 16
      for (size_t r = 0; r < kRows; ++r) {
        const vec xr = V::splat(a_row[r][k]);
#pragma GCC unroll 16
        for (size_t v = 0; v < kVectors; ++v) acc[r][v] = V::fma(xr, w[v], acc[r][v]);
      }
    }
#pragma GCC unroll 16
    for (size_t r = 0; r < kRows; ++r) {
#pragma GCC unroll 16
      for (size_t v = 0; v < kVectors; ++v) V::store(c + r * ldc + v * W, acc[r][v]);
    }
  }

  template <GemmWeights T>
  static void run_tiled(const GemmProblem& p, const GemmTask& t, size_t k_block) {
    using elem = typename WeightLoad<V, T>::elem;
    const elem* weights = static_cast<const elem*>(p.weights);
    for (size_t k0 = 0; k0 < p.k; k0 += k_block) {
      const size_t kc = p.k - k0 < k_block ? p.k - k0 : k_block;
      const bool accumulate = k0 > 0;
      for (size_t panel = t.panel_begin; panel < t.panel_end; ++panel) {
        const elem* b_block = weights + (panel * p.k + k0) * kGemmPanel;
        for (size_t part = 0; part < kGemmPanel; part += kCols) {
          const size_t n0 = panel * kGemmPanel + part;
          if (n0 >= p.n) break;
          const size_t cols = p.n - n0 < kCols ? p.n - n0 : kCols;
          for (size_t r0 = t.row_begin; r0 < t.row_end; r0 += kRows) {
            const size_t rows = t.row_end - r0 < kRows ? t.row_end - r0 : kRows;
            const float* a = p.x + r0 * p.x_stride + k0;
            float* c = p.y + r0 * p.y_stride + n0;
            if (rows == kRows && cols == kCols) {
              tile<T>(kc, a, p.x_stride, rows, b_block + part, c, p.y_stride, accumulate);
              continue;
            }
            alignas(64) float edge[kRows * kCols];
            if (accumulate) copy_block(c, p.y_stride, edge, kCols, rows, cols);
            tile<T>(kc, a, p.x_stride, rows, b_block + part, edge, kCols, accumulate);
            copy_block(edge, kCols, c, p.y_stride, rows, cols);
          }
        }
      }
    }
  }

  static void copy_block(const float* from, size_t from_stride, float* to, size_t to_stride,
                         size_t rows, size_t cols) {
    for (size_t r = 0; r < rows; ++r) {
      for (size_t i = 0; i < cols; ++i) to[r * to_stride + i] = from[r * from_stride + i];
    }
  }

  // ---- GEMV path --------------------------------------------------------------------

  // GEMV software prefetch distance, bytes ahead in each panel's stream. Measured at
  // M = 1, K = 768, N = 3072 on Zen 5: with weights streamed from DRAM, int8 96 -> 74 us
  // and f16 at par; with the weights in L3, f16 52 -> 43 us and int8 35 -> 37 us. f32
  // gains nothing (the hardware prefetcher keeps up with it, and its loop is bound by
  // load slots, which the requests take), so it has none.
  template <GemmWeights T>
  static constexpr size_t prefetch_bytes() {
    return T == GemmWeights::kF32 ? 0 : 2048;
  }

  // Shape of the GEMV loop for kR rows, from the accumulator budget: a step reads kG
  // vectors of each of kP consecutive panels (whole panels, kG = 32 / W, when kR rows of
  // a panel fit the budget; else a part of one panel) for one k, so one broadcast of
  // x[r][k] feeds kP * kG FMAs; kS interleaved partial sums per output hide the FMA
  // latency. kS depends on (ISA, kR) only: a panel that cannot join a group of kP runs
  // alone with the same kS, so its sums are the same.
  template <size_t kR>
  struct Gemv {
    static constexpr size_t kPanelVectors = kGemmPanel / W;
    static constexpr bool kWhole = kPanelVectors * kR <= kGemvAccumulators;
    static constexpr size_t kG =
        kWhole ? kPanelVectors
               : floor_pow2(kGemvAccumulators / kR > 0 ? kGemvAccumulators / kR : 1);
    static constexpr size_t kFitPanels = kWhole ? kGemvAccumulators / (kPanelVectors * kR) : 1;
    static constexpr size_t kP = floor_pow2(kFitPanels > 4 ? 4 : kFitPanels);
    static constexpr size_t kFitSums = kGemvAccumulators / (kR * kG * kP);
    static constexpr size_t kS = floor_pow2(kFitSums < 1 ? 1 : kFitSums > 4 ? 4 : kFitSums);
  };

  // Rows [row0, row0 + kR) x outputs [32 * panel + part, + kG * W) of kPanels panels.
  template <GemmWeights T, size_t kR, size_t kPanels>
  static void gemv_step(const GemmProblem& p, size_t row0, size_t panel, size_t part) {
    using WL = WeightLoad<V, T>;
    using elem = typename WL::elem;
    constexpr size_t kG = Gemv<kR>::kG, kS = Gemv<kR>::kS;
    const elem* b[kPanels];
#pragma GCC unroll 16
    for (size_t q = 0; q < kPanels; ++q) {
      b[q] = static_cast<const elem*>(p.weights) + (panel + q) * p.k * kGemmPanel + part;
    }
    const float* x[kR];
#pragma GCC unroll 16
    for (size_t r = 0; r < kR; ++r) x[r] = p.x + (row0 + r) * p.x_stride;
    vec acc[kS][kR][kPanels][kG];
#pragma GCC unroll 64
    for (size_t s = 0; s < kS; ++s)
#pragma GCC unroll 16
      for (size_t r = 0; r < kR; ++r)
#pragma GCC unroll 16
        for (size_t q = 0; q < kPanels; ++q)
#pragma GCC unroll 16
          for (size_t g = 0; g < kG; ++g) acc[s][r][q][g] = V::zero();
    // Step k goes to partial sum k mod kS; the last k % kS steps run one at a time.
    const size_t k_body = p.k / kS * kS;
    for (size_t k = 0; k < k_body; k += kS) {
#pragma GCC unroll 16
      for (size_t s = 0; s < kS; ++s) {
        vec w[kPanels][kG];
#pragma GCC unroll 16
        for (size_t q = 0; q < kPanels; ++q) {
          // One request per cache line (a panel row of 32 weights is 32 to 128 bytes).
          constexpr size_t kRowBytes = kGemmPanel * sizeof(elem);
          constexpr size_t kRowsPerLine = kRowBytes >= 64 ? 1 : 64 / kRowBytes;
          if (prefetch_bytes<T>() > 0 && (kS % kRowsPerLine != 0 || s % kRowsPerLine == 0)) {
            const char* ahead =
                reinterpret_cast<const char*>(b[q] + (k + s) * kGemmPanel) + prefetch_bytes<T>();
#pragma GCC unroll 4
            for (size_t line = 0; line < kRowBytes; line += 64) __builtin_prefetch(ahead + line);
          }
#pragma GCC unroll 16
          for (size_t g = 0; g < kG; ++g) w[q][g] = WL::load(b[q] + (k + s) * kGemmPanel + g * W);
        }
#pragma GCC unroll 16
        for (size_t r = 0; r < kR; ++r) {
          const vec xr = V::splat(x[r][k + s]);
#pragma GCC unroll 16
          for (size_t q = 0; q < kPanels; ++q)
#pragma GCC unroll 16
            for (size_t g = 0; g < kG; ++g) acc[s][r][q][g] = V::fma(xr, w[q][g], acc[s][r][q][g]);
        }
      }
    }
#pragma GCC unroll 16
    for (size_t s = 0; s < kS; ++s) {
      if (k_body + s >= p.k) continue;  // (not break: keeps acc in registers)
#pragma GCC unroll 16
      for (size_t q = 0; q < kPanels; ++q) {
#pragma GCC unroll 16
        for (size_t g = 0; g < kG; ++g) {
          const vec w = WL::load(b[q] + (k_body + s) * kGemmPanel + g * W);
#pragma GCC unroll 16
          for (size_t r = 0; r < kR; ++r) {
            acc[s][r][q][g] = V::fma(V::splat(x[r][k_body + s]), w, acc[s][r][q][g]);
          }
        }
      }
    }
    // Partial sums added pairwise in a fixed order: (s0 + s1) + (s2 + s3).
#pragma GCC unroll 16
    for (size_t span = 1; span < kS; span *= 2)
#pragma GCC unroll 16
      for (size_t s = 0; s + span < kS; s += 2 * span)
#pragma GCC unroll 16
        for (size_t r = 0; r < kR; ++r)
#pragma GCC unroll 16
          for (size_t q = 0; q < kPanels; ++q)
#pragma GCC unroll 16
            for (size_t g = 0; g < kG; ++g)
              acc[s][r][q][g] = acc[s][r][q][g] + acc[s + span][r][q][g];
#pragma GCC unroll 16
    for (size_t r = 0; r < kR; ++r) {
#pragma GCC unroll 16
      for (size_t q = 0; q < kPanels; ++q) {
        const size_t n0 = (panel + q) * kGemmPanel + part;
        float* y = p.y + (row0 + r) * p.y_stride + n0;
        if (n0 + kG * W <= p.n) {
#pragma GCC unroll 16
          for (size_t g = 0; g < kG; ++g) V::store(y + g * W, acc[0][r][q][g]);
        } else {
          alignas(64) float lanes[kG * W];
#pragma GCC unroll 16
          for (size_t g = 0; g < kG; ++g) V::store(lanes + g * W, acc[0][r][q][g]);
          for (size_t i = 0; n0 + i < p.n && i < kG * W; ++i) y[i] = lanes[i];
        }
      }
    }
  }

  template <GemmWeights T, size_t kR>
  static void gemv(const GemmProblem& p, const GemmTask& t) {
    constexpr size_t kP = Gemv<kR>::kP, kStepCols = Gemv<kR>::kG * W;
    size_t panel = t.panel_begin;
    for (; panel + kP <= t.panel_end; panel += kP) {
      for (size_t part = 0; part < kGemmPanel && panel * kGemmPanel + part < p.n; part += kStepCols) {
        gemv_step<T, kR, kP>(p, t.row_begin, panel, part);
      }
    }
    for (; panel < t.panel_end; ++panel) {
      for (size_t part = 0; part < kGemmPanel && panel * kGemmPanel + part < p.n; part += kStepCols) {
        gemv_step<T, kR, 1>(p, t.row_begin, panel, part);
      }
    }
  }

  // ---- Entry ------------------------------------------------------------------------

  template <GemmWeights T, size_t kBlock>
  static void run_task(const GemmProblem& p, const GemmTask& t) {
    if (p.m <= kGemvMaxRows) {
      switch (t.row_end - t.row_begin) {
        case 1:
          gemv<T, 1>(p, t);
          break;
        case 2:
          gemv<T, 2>(p, t);
          break;
        case 3:
          gemv<T, 3>(p, t);
          break;
        default:
          gemv<T, 4>(p, t);
          break;
      }
    } else {
      run_tiled<T>(p, t, kBlock);
    }
    const size_t n1 = t.panel_end * kGemmPanel < p.n ? t.panel_end * kGemmPanel : p.n;
    epilogue(p, t.row_begin, t.row_end, t.panel_begin * kGemmPanel, n1);
  }

  // kHalfWeights false: no f16 or bf16 entries (null), so nothing references their code
  // and a firmware's --gc-sections drops it (FOCAL_HALF_WEIGHTS, engine/CMakeLists.txt).
  template <size_t kBlock, bool kHalfWeights>
  static constexpr GemmKernelTable table(const char* isa) {
    GemmTaskFn f16 = nullptr, bf16 = nullptr;
    if constexpr (kHalfWeights) {
      f16 = run_task<GemmWeights::kF16, kBlock>;
      bf16 = run_task<GemmWeights::kBF16, kBlock>;
    }
    const GemmTaskFn f32 = run_task<GemmWeights::kF32, kBlock>;
    const GemmTaskFn i8 = run_task<GemmWeights::kI8, kBlock>;
    return GemmKernelTable{isa, kRows, kCols, kBlock, {f32, f16, bf16, i8}, epilogue};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
