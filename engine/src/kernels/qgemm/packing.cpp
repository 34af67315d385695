// Packing into the int8-dot layout of include/focal/gemm.h (panels of 32 outputs, k in
// groups of 8 bytes per output, then the scales and the column sums), and the load-time
// check that packed bytes are well formed. Runs on the host when the converter writes a
// model and when a model is verified, never in a session's hot path.
#include <cmath>
#include <cstring>

#include "qgemm/qgemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

size_t panels_of(size_t n) { return (n + kGemmPanel - 1) / kGemmPanel; }

// Byte of output n (< panels * 32), input i (< groups * 8) in the panels.
size_t weight_at(size_t groups, size_t n, size_t i) {
  return (((n / kGemmPanel) * groups + i / kQGemmGroup) * kGemmPanel + n % kGemmPanel) * kQGemmGroup +
         i % kQGemmGroup;
}

// Writes scales and column sums after the panels (which must already hold the q).
void finish_packing(uint8_t* packed, size_t n, size_t k, const float* row_scales) {
  const size_t panels = panels_of(n), groups = qgemm_groups(k);
  const size_t panel_end = panels * groups * kQGemmPanelGroupBytes;
  std::memset(packed + panel_end, 0, qgemm_scales_offset(panels, k) - panel_end);
  uint8_t* scales = packed + qgemm_scales_offset(panels, k);
  uint8_t* sums = packed + qgemm_sums_offset(panels, k);
  for (size_t row = 0; row < panels * kGemmPanel; ++row) {
    const float scale = row < n ? row_scales[row] : 0.0f;
    int32_t sum = 0;
    for (size_t i = 0; i < k; ++i) sum += static_cast<int8_t>(packed[weight_at(groups, row, i)]);
    std::memcpy(scales + row * 4, &scale, 4);
    std::memcpy(sums + row * 4, &sum, 4);
  }
}

}  // namespace

bool qgemm_pack(const float* w, size_t n, size_t k, const float* scales, uint8_t* packed,
                PackFailure* failure) {
  if (!gemm_check_weights(GemmWeights::kI8, w, n, k, scales, failure)) return false;
  const size_t panels = panels_of(n), groups = qgemm_groups(k);
  std::memset(packed, 0, panels * groups * kQGemmPanelGroupBytes);  // padding past N and K
  // The scales wait in their own slots until finish_packing writes them there again.
  uint8_t* scale_slots = packed + qgemm_scales_offset(panels, k);
  for (size_t row = 0; row < n; ++row) {
    const float* w_row = w + row * k;
    const Int8WeightRow int8_row = int8_weight_row(w_row, k, scales, row);
    std::memcpy(scale_slots + row * 4, &int8_row.scale, 4);
    for (size_t i = 0; i < k; ++i) {
      packed[weight_at(groups, row, i)] = static_cast<uint8_t>(int8_weight(w_row[i], int8_row));
    }
  }
  // finish_packing reads each row's scale before it writes the same slot.
  finish_packing(packed, n, k, reinterpret_cast<const float*>(scale_slots));
  return true;
}

void qgemm_pack_quantized(const int8_t* q, size_t n, size_t k, const float* scales,
                          uint8_t* packed) {
  const size_t panels = panels_of(n), groups = qgemm_groups(k);
  std::memset(packed, 0, panels * groups * kQGemmPanelGroupBytes);
  for (size_t row = 0; row < n; ++row) {
    for (size_t i = 0; i < k; ++i) packed[weight_at(groups, row, i)] = static_cast<uint8_t>(q[row * k + i]);
  }
  finish_packing(packed, n, k, scales);
}

bool qgemm_packed_consistent(const uint8_t* packed, size_t n, size_t k, const char** why) {
  const size_t panels = panels_of(n), groups = qgemm_groups(k);
  for (size_t row = 0; row < panels * kGemmPanel; ++row) {
    int32_t sum = 0;
    for (size_t i = 0; i < groups * kQGemmGroup; ++i) {
      const int8_t q = static_cast<int8_t>(packed[weight_at(groups, row, i)]);
      if (q != 0 && (row >= n || i >= k)) {
        *why = "a weight past the matrix (panel padding) is not zero";
        return false;
      }
      sum += q;
    }
    float scale;
    int32_t stored_sum;
    std::memcpy(&scale, packed + qgemm_scales_offset(panels, k) + row * 4, 4);
    std::memcpy(&stored_sum, packed + qgemm_sums_offset(panels, k) + row * 4, 4);
    if (!(std::isfinite(scale) && scale >= 0.0f) || (row >= n && scale != 0.0f)) {
      *why = "a weight scale is negative, not finite, or set past the matrix";
      return false;
    }
    if (stored_sum != sum) {
      *why = "a column sum does not match its weights";
      return false;
    }
  }
  return true;
}

}  // namespace kernels
}  // namespace focal
