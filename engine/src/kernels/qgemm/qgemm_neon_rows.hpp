// The rows of an int8 GEMM tile as the ARM micro-kernels read them: a fixed count of
// row pointers, so each micro-kernel has one shape. Rows past `rows` (the last tile of a
// task) read the last real row again; their sums are computed and never stored.
#pragma once

#include <cstddef>
#include <cstdint>

namespace focal {
namespace kernels {
namespace {

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

}  // namespace
}  // namespace kernels
}  // namespace focal
