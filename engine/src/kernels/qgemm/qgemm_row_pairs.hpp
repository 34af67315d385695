// The tile loop of the int8 GEMM variants that widen bytes to int16 (AVX2, SSE2): their
// register tile is 2 rows x a block of outputs, so a tile runs as pairs of rows, each
// against the panel's blocks in turn, over every group. Included by each variant's
// translation unit, in an unnamed namespace (compiled with that variant's flags).
//
// Ops (the variant) provides:
//   static constexpr size_t kBlockOutputs;        // outputs per block (divides 32)
//   struct Weights;                               // a block's group, widened
//   struct Sums;                                  // one row's accumulators for a block
//   static Weights load_weights(const int8_t* w); // the block's group at w
//   static Vector load_row(const uint8_t* row, size_t g);  // a row's group g, widened
//   static void accumulate(Sums&, Vector row, const Weights&);
//   static void store(const Sums&, int32_t* c);   // c[0..kBlockOutputs) = the sums
#pragma once

#include <cstddef>
#include <cstdint>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

// Sums of kRows (1 or 2) rows against the block of outputs whose weights start at
// `block` in the panel; c: the first row's sums (the second's one panel row further on).
template <class Ops, size_t kRows>
void row_pair_block(const uint8_t* a, size_t a_stride, const int8_t* block, size_t groups,
                    int32_t* c) {
  typename Ops::Sums r0{}, r1{};  // named, not an array: g++ 12 spills arrays of vectors
  for (size_t g = 0; g < groups; ++g) {
    const typename Ops::Weights w = Ops::load_weights(block + g * kQGemmPanelGroupBytes);
    Ops::accumulate(r0, Ops::load_row(a, g), w);
    if constexpr (kRows > 1) Ops::accumulate(r1, Ops::load_row(a + a_stride, g), w);
  }
  Ops::store(r0, c);
  if constexpr (kRows > 1) Ops::store(r1, c + kGemmPanel);
}

// QGemmTileFn for any number of rows: pairs of rows (a last single one) x blocks.
template <class Ops>
void row_pair_tile(const uint8_t* a, size_t a_stride, size_t rows, const int8_t* panel,
                   size_t groups, int32_t* c) {
  for (size_t r = 0; r < rows; r += 2) {
    const uint8_t* pair = a + r * a_stride;
    for (size_t j = 0; j < kGemmPanel; j += Ops::kBlockOutputs) {
      const int8_t* block = panel + j * kQGemmGroup;
      int32_t* out = c + r * kGemmPanel + j;
      if (rows - r >= 2) {
        row_pair_block<Ops, 2>(pair, a_stride, block, groups, out);
      } else {
        row_pair_block<Ops, 1>(pair, a_stride, block, groups, out);
      }
    }
  }
}

}  // namespace
}  // namespace kernels
}  // namespace focal
