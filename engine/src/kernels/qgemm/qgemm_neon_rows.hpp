// How the ARM int8 GEMM micro-kernels walk a tile: a fixed count of row pointers, so
// each micro-kernel has one shape, and the panel's 32 outputs in passes of a few
// outputs, each pass keeping its accumulators in registers over all groups.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Rows past `rows` (the last tile of a task) read the last real row again; their sums
// are computed and never stored.
template <size_t kCount>
struct TileRows {
  const int8_t* row[kCount];

  TileRows(const uint8_t* a, size_t a_stride, size_t rows) {
    for (size_t r = 0; r < kCount; ++r) {
      const size_t real = r < rows ? r : rows - 1;
      row[r] = reinterpret_cast<const int8_t*>(a + real * a_stride);
    }
  }
};

// The tile() of a Micro struct (qgemm_driver.hpp) whose
//   static void pass(const TileRows<kTileRows>&, size_t rows, const int8_t* w,
//                    size_t groups, int32_t* c);
// computes its rows against kPassOutputs consecutive outputs of a panel (w: their first
// group, the next group kQGemmPanelGroupBytes on; c: the first of their columns).
template <class Micro>
struct TileByPasses {
  static void tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
    static_assert(kGemmPanel % Micro::kPassOutputs == 0, "passes must cover the panel");
    const TileRows<Micro::kTileRows> x(a, a_stride, rows);
    for (size_t j0 = 0; j0 < kGemmPanel; j0 += Micro::kPassOutputs) {
      Micro::pass(x, rows, panel + j0 * kQGemmGroup, groups, c + j0);
    }
  }
};

}  // namespace
}  // namespace kernels
}  // namespace focal
