// The part of every int4 GEMM variant that is not its panel kernel: row quantization with
// the group sums, and the task loop (q4gemm_kernels.h). Each variant's translation unit
// instantiates it with its own flags; everything is in an unnamed namespace (no copy
// built with AVX-512 flags may serve another path).
//
// Micro (the variant) provides:
//   template <size_t kRows> static void panel_rows(const Q4GemmProblem&, const uint8_t* panel,
//                                                  size_t row0, float* f);  // f: [4][32]
#pragma once

#include <cstddef>
#include <cstdint>

#include "q4gemm/q4gemm_kernels.h"
#include "qgemm/qgemm_driver.hpp"

namespace focal {
namespace kernels {
namespace {

// A Micro for kernels that take one row at a time over the whole panel (RowPass writes
// f[0..31] of that row).
template <void (*RowPass)(const Q4GemmProblem&, const uint8_t* panel, size_t row, float* f)>
struct RowByRowMicro {
  template <size_t kRows>
  static void panel_rows(const Q4GemmProblem& p, const uint8_t* panel, size_t row0, float* f) {
    for (size_t r = 0; r < kRows; ++r) RowPass(p, panel, row0 + r, f + r * kGemmPanel);
  }
};

template <class Micro>
struct Q4GemmDriver {
  // Phase 1: the int8 GEMM's row quantization (offset 0), then each group's sum of q.
  static void quantize(const Q4GemmProblem& p, size_t row_begin, size_t row_end) {
    quantize_rows_plain<0>(p.rows, row_begin, row_end);
    const size_t k = p.rows.gemm.k;
    for (size_t r = row_begin; r < row_end; ++r) {
      const int8_t* q = reinterpret_cast<const int8_t*>(p.rows.a + r * p.rows.a_stride);
      for (size_t g = 0; g < p.groups; ++g) {
        const size_t end = (g + 1) * p.group < k ? (g + 1) * p.group : k;
        int32_t sum = 0;
        for (size_t i = g * p.group; i < end; ++i) sum += q[i];
        p.group_sums[r * p.groups + g] = sum;
      }
    }
  }

  static void panel(const Q4GemmProblem& p, const uint8_t* w, size_t row0, size_t rows, float* f) {
    switch (rows) {
      case 1: return Micro::template panel_rows<1>(p, w, row0, f);
      case 2: return Micro::template panel_rows<2>(p, w, row0, f);
      case 3: return Micro::template panel_rows<3>(p, w, row0, f);
      default: return Micro::template panel_rows<4>(p, w, row0, f);
    }
  }

  // y[r][32 * panel + j] = f[r][j] * row scale, for the outputs below N.
  static void store(const Q4GemmProblem& p, const float* f, size_t row0, size_t rows, size_t panel_index) {
    const GemmProblem& g = p.rows.gemm;
    const size_t n0 = panel_index * kGemmPanel;
    const size_t cols = g.n - n0 < kGemmPanel ? g.n - n0 : kGemmPanel;
    for (size_t r = 0; r < rows; ++r) {
      const float scale = p.rows.a_scales[row0 + r];
      float* y = g.y + (row0 + r) * g.y_stride + n0;
      for (size_t j = 0; j < cols; ++j) y[j] = f[r * kGemmPanel + j] * scale;
    }
  }

  // Each panel once, with every block of 4 rows of the task while it is in L1/L2 (decode:
  // one block, so the weights stream once).
  static void run_task(const Q4GemmProblem& p, const GemmTask& t, const GemmKernelTable& epilogue) {
    alignas(64) float f[kQ4MaxRows * kGemmPanel];
    for (size_t panel_index = t.panel_begin; panel_index < t.panel_end; ++panel_index) {
      const uint8_t* w = p.weights + panel_index * p.panel_bytes;
      for (size_t r0 = t.row_begin; r0 < t.row_end; r0 += kQ4MaxRows) {
        const size_t rows = t.row_end - r0 < kQ4MaxRows ? t.row_end - r0 : kQ4MaxRows;
        panel(p, w, r0, rows, f);
        store(p, f, r0, rows, panel_index);
      }
    }
    const GemmProblem& g = p.rows.gemm;
    const size_t n1 = t.panel_end * kGemmPanel < g.n ? t.panel_end * kGemmPanel : g.n;
    epilogue.epilogue(g, t.row_begin, t.row_end, t.panel_begin * kGemmPanel, n1);
  }

  static constexpr Q4GemmKernelTable table(const char* isa) {
    return Q4GemmKernelTable{isa, panel, quantize, run_task};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
