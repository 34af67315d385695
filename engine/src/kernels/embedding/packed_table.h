// Token rows read out of a Dense weight's packed layouts (include/focal/gemm.h), so a
// tied LM head is stored once: the output GEMM/GEMV reads its panels as it always does,
// and the embedding gather picks one output's row out of them.
//
// Why the gather reads the panels rather than the GEMM reading rows: the GEMM kernels
// stream a panel row (32 outputs of one k) per step, and decode reads each weight byte
// once, in address order; rows would cost them that. The gather's price is a strided
// read: row n's K elements lie 32 elements apart (f32: one 128-byte step per element;
// int8-dot: 8 adjacent k every 256 bytes), so the 32-output panel holding the row passes
// through the cache: K * 32 * e bytes (96 KiB for f32 at K = 768), a few microseconds
// per token, against the milliseconds of the token's layers.
//
// A new packed layout (int4 groups, say) adds its case to PackedTableLayout, an index
// function and a row-scale rule here; the gather kernels need nothing else.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemm/gemm_kernels.h"
#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {

enum class EmbeddingLayout {
  kRows,           // [vocab, dim] row-major (an Embedding's own table)
  kDensePanels,    // a Dense weight [vocab, dim] in the panel layout (TensorLayout DensePacked)
  kInt8DotPanels,  // a Dense weight [vocab, dim] in the int8-dot layout (DenseInt8Dot, int8 only)
};

// Element index (in stored elements, int8-dot in bytes) of row n, column k.
inline size_t packed_table_index(EmbeddingLayout layout, size_t n, size_t k, size_t dim) {
  const size_t panel = n / kGemmPanel, lane = n % kGemmPanel;
  if (layout == EmbeddingLayout::kInt8DotPanels) {
    const size_t group = k / kQGemmGroup;
    return ((panel * qgemm_groups(dim) + group) * kGemmPanel + lane) * kQGemmGroup + k % kQGemmGroup;
  }
  if (layout == EmbeddingLayout::kDensePanels) return (panel * dim + k) * kGemmPanel + lane;
  return n * dim + k;
}

// Where an int8 packed table keeps its per-row (per-output) f32 scales: after the panels.
inline size_t packed_table_scales_offset(EmbeddingLayout layout, size_t vocab, size_t dim) {
  const size_t panels = (vocab + kGemmPanel - 1) / kGemmPanel;
  return layout == EmbeddingLayout::kInt8DotPanels ? qgemm_scales_offset(panels, dim)
                                                   : gemm_scales_offset(panels, dim);
}

}  // namespace kernels
}  // namespace focal
