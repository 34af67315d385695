// Packing of dense weights into the panel layout of include/focal/gemm.h: runs on the
// host when the converter writes a model (and in tests), never in a session's hot path.
#include <cmath>
#include <cstring>

#include "focal/internal/int8_row.h"
#include "simd/vec_scalar.hpp"

#include "gemm/gemm_kernels.h"

namespace focal {
namespace kernels {
namespace {

uint32_t float_bits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return bits;
}

// bfloat16: the top half of the float, rounded to nearest even (finite input).
uint16_t float_to_bf16(float value) {
  const uint32_t bits = float_bits(value);
  return static_cast<uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

// |value| that rounds to infinity in each type.
constexpr float kHalfOverflow = 65520.0f;
constexpr float kBf16Overflow = 3.3961775e38f;  // (2 - 2^-8) * 2^127, the tie above the max

void set_failure(PackFailure* failure, size_t row, size_t col, float value, const char* why) {
  failure->row = row;
  failure->col = col;
  failure->value = value;
  failure->why = why;
}

// Checks one weight against the type; false (with the reason) if it cannot be stored.
bool storable(GemmWeights type, float value, const char** why) {
  if (type == GemmWeights::kF32) return true;
  if (!std::isfinite(value)) {
    *why = "not finite";
    return false;
  }
  if (type == GemmWeights::kF16 && std::fabs(value) >= kHalfOverflow) {
    *why = "|w| >= 65520";
    return false;
  }
  if (type == GemmWeights::kBF16 && std::fabs(value) >= kBf16Overflow) {
    *why = "|w| >= 3.3961775e38";
    return false;
  }
  return true;
}

}  // namespace

// Output row `n`: the caller's scale (checked before), or the row's own (the weights
// are finite, checked before).
Int8WeightRow int8_weight_row(const float* w_row, size_t k, const float* scales, size_t n) {
  Int8WeightRow row{0.0f, 0.0f};
  row.scale = scales != nullptr ? scales[n] : int8_row_scale(w_row, k, &row.inv);
  return row;
}

int8_t int8_weight(float value, const Int8WeightRow& row) {
  if (row.inv > 0.0f) return quantize_int8(value, row.inv);
  if (row.scale == 0.0f) return 0;  // an all-zero row of its own scale
  const float q = std::nearbyint(value / row.scale);
  return static_cast<int8_t>(q > 127.0f ? 127.0f : q < -127.0f ? -127.0f : q);
}


size_t gemm_packed_bytes(GemmWeights type, size_t n, size_t k) {
  const size_t panels = (n + kGemmPanel - 1) / kGemmPanel;
  const size_t elements = panels * k * kGemmPanel;
  if (type == GemmWeights::kI8) return gemm_scales_offset(panels, k) + panels * kGemmPanel * 4;
  return elements * gemm_weight_bytes(type);
}

bool gemm_check_weights(GemmWeights type, const float* w, size_t n, size_t k, const float* scales,
                        PackFailure* failure) {
  for (size_t row = 0; row < n; ++row) {
    for (size_t col = 0; col < k; ++col) {
      const char* why = nullptr;
      if (!storable(type, w[row * k + col], &why)) {
        set_failure(failure, row, col, w[row * k + col], why);
        return false;
      }
    }
    if (type == GemmWeights::kI8 && scales != nullptr &&
        !(scales[row] > 0.0f && std::isfinite(scales[row]))) {
      set_failure(failure, row, k, scales[row], "must be finite and > 0");
      return false;
    }
  }
  return true;
}

bool gemm_pack(GemmWeights type, const float* w, size_t n, size_t k, const float* scales,
               uint8_t* packed, PackFailure* failure) {
  // Check everything first, so a refused matrix leaves nothing half-written.
  if (!gemm_check_weights(type, w, n, k, scales, failure)) return false;
  const size_t panels = (n + kGemmPanel - 1) / kGemmPanel;
  uint8_t* scales_out = packed + gemm_scales_offset(panels, k);  // int8 only
  for (size_t p = 0; p < panels; ++p) {
    for (size_t j = 0; j < kGemmPanel; ++j) {
      const size_t row = p * kGemmPanel + j;
      const float* w_row = row < n ? w + row * k : nullptr;  // null: zero padding
      const Int8WeightRow int8_row = type == GemmWeights::kI8 && w_row != nullptr
                                         ? int8_weight_row(w_row, k, scales, row)
                                         : Int8WeightRow{0.0f, 0.0f};
      if (type == GemmWeights::kI8) std::memcpy(scales_out + row * 4, &int8_row.scale, 4);
      for (size_t col = 0; col < k; ++col) {
        const size_t at = (p * k + col) * kGemmPanel + j;
        const float value = w_row != nullptr ? w_row[col] : 0.0f;
        switch (type) {
          case GemmWeights::kF32:
            std::memcpy(packed + at * 4, &value, 4);
            break;
          case GemmWeights::kF16: {
            const uint16_t h = simd::float_to_half(value);
            std::memcpy(packed + at * 2, &h, 2);
            break;
          }
          case GemmWeights::kBF16: {
            const uint16_t b = float_to_bf16(value);
            std::memcpy(packed + at * 2, &b, 2);
            break;
          }
          case GemmWeights::kI8:
            packed[at] = static_cast<uint8_t>(int8_weight(value, int8_row));
            break;
        }
      }
    }
  }
  if (type == GemmWeights::kI8) {  // the gap between the panels and the scales
    const size_t end = panels * k * kGemmPanel;
    std::memset(packed + end, 0, gemm_scales_offset(panels, k) - end);
  }
  return true;
}

}  // namespace kernels
}  // namespace focal
