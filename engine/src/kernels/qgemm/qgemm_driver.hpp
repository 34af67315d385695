// The part of every int8 GEMM variant that is not its micro-kernel: row quantization and
// the task loop (qgemm_kernels.h). Each variant's translation unit instantiates it with
// its own flags, so the plain loops here vectorize for that instruction set; everything
// is in an unnamed namespace (no copy built with AVX-512 flags may serve another path).
//
// Micro (the variant) provides:
//   static constexpr size_t kTileRows;          // rows per tile call
//   static constexpr uint8_t kOffset;           // 0 or 128 (u8 activations)
//   static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
//                    size_t groups, int32_t* c);  // QGemmTileFn
//   static void quantize_rows(const QGemmProblem&, size_t row_begin, size_t row_end)
//                                               // optional: QuantizeRows<Micro> below
//   static void store_output_row(const int32_t* c, const int32_t* sums, int32_t offset, float scale,
//                         float* y, size_t cols)  // optional: the plain loop of store_tile
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "focal/internal/int8_row.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Phase 1 by the one scalar row quantizer (focal/internal/int8_row.h; products and rint
// are exact IEEE operations, the same on every ISA), then the variant's offset.
template <uint8_t kOffset>
void quantize_rows_plain(const QGemmProblem& p, size_t row_begin, size_t row_end) {
  const size_t k = p.gemm.k;
  for (size_t r = row_begin; r < row_end; ++r) {
    uint8_t* q = p.a + r * p.a_stride;
    p.a_scales[r] = quantize_int8_row(p.gemm.x + r * p.gemm.x_stride, k, reinterpret_cast<int8_t*>(q));
    if (kOffset != 0) {
      for (size_t i = 0; i < k; ++i) q[i] = static_cast<uint8_t>(q[i] + kOffset);
    }
    for (size_t i = k; i < p.a_stride; ++i) q[i] = kOffset;
  }
}

// Whether a variant brings its own row store (Micro::store_output_row).
template <class Micro, class = void>
struct HasStoreRow : std::false_type {};
template <class Micro>
struct HasStoreRow<Micro, std::void_t<decltype(&Micro::store_output_row)>> : std::true_type {};

template <class Micro>
struct QGemmDriver {
  static_assert(Micro::kTileRows <= kQGemmMaxTileRows, "tile too tall for the driver");

  // y[r][32 * panel + j] = float(c[r][j] - offset * column_sum[j]) * row scale.
  static void store_tile(const QGemmProblem& p, const int32_t* c, size_t row0, size_t rows,
                         size_t panel) {
    const size_t n0 = panel * kGemmPanel;
    const size_t cols = p.gemm.n - n0 < kGemmPanel ? p.gemm.n - n0 : kGemmPanel;
    const int32_t* sums = p.column_sums + n0;
    for (size_t r = 0; r < rows; ++r) {
      const float scale = p.a_scales[row0 + r];
      float* y = p.gemm.y + (row0 + r) * p.gemm.y_stride + n0;
      const int32_t* cr = c + r * kGemmPanel;
      if constexpr (HasStoreRow<Micro>::value) {
        Micro::store_output_row(cr, sums, int32_t(Micro::kOffset), scale, y, cols);
      } else {
        for (size_t j = 0; j < cols; ++j) {
          const int32_t exact = cr[j] - int32_t(Micro::kOffset) * sums[j];
          y[j] = static_cast<float>(exact) * scale;
        }
      }
    }
  }

  static void run_task(const QGemmProblem& p, const GemmTask& t, const GemmKernelTable& epilogue) {
    alignas(64) int32_t c[kQGemmMaxTileRows * kGemmPanel];
    for (size_t panel = t.panel_begin; panel < t.panel_end; ++panel) {
      const int8_t* w = p.weights + panel * p.groups * kQGemmPanelGroupBytes;
      for (size_t r0 = t.row_begin; r0 < t.row_end; r0 += Micro::kTileRows) {
        const size_t rows = t.row_end - r0 < Micro::kTileRows ? t.row_end - r0 : Micro::kTileRows;
        Micro::tile(p.a + r0 * p.a_stride, p.a_stride, rows, w, p.groups, c);
        store_tile(p, c, r0, rows, panel);
      }
    }
    const size_t n1 = t.panel_end * kGemmPanel < p.gemm.n ? t.panel_end * kGemmPanel : p.gemm.n;
    epilogue.epilogue(p.gemm, t.row_begin, t.row_end, t.panel_begin * kGemmPanel, n1);
  }

  static constexpr QGemmKernelTable table(const char* isa) {
    return QGemmKernelTable{isa,           Micro::kOffset,         Micro::kTileRows, Micro::tile,
                            Micro::quantize_rows, run_task};
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
