// Packing into the int4 layout of include/focal/gemm.h (panels of 32 outputs; each group
// of K its quads of nibbles, then its 32 f16 scales), the choice of the scales, and the
// load-time check that packed bytes are well formed. Runs on the host when the converter
// writes a model and when a model is verified, never in a session's hot path.
#include <cmath>
#include <cstring>
#include <vector>

#include "q4gemm/q4gemm_kernels.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace kernels {
namespace {

size_t panels_of(size_t n) { return (n + kGemmPanel - 1) / kGemmPanel; }

// Byte of output n, input i, and whether it is the high nibble: a quad's byte b holds
// output b / 4 (of the panel's first 16) in its low nibble and output 16 + b / 4 in its
// high nibble, both at k = 4 * quad + b % 4.
size_t nibble_byte(size_t k, size_t group, size_t n, size_t i, bool* high) {
  const size_t j = n % kGemmPanel, g = i / group, quad_in_group = (i % group) / kQ4QuadK;
  *high = j >= kGemmPanel / 2;
  return n / kGemmPanel * q4_panel_bytes(k, group) + g * q4_group_stride(group) +
         quad_in_group * kQ4QuadBytes + (j % (kGemmPanel / 2)) * kQ4QuadK + i % kQ4QuadK;
}

// Byte offset of output n's f16 scale for group g.
size_t scale_byte(size_t k, size_t group, size_t n, size_t g) {
  return n / kGemmPanel * q4_panel_bytes(k, group) + g * q4_group_stride(group) +
         q4_group_quads(k, group, g) * kQ4QuadBytes + (n % kGemmPanel) * 2;
}

int8_t quantize(float w, float scale) {
  if (scale == 0.0f) return 0;
  const float q = std::nearbyint(w / scale);
  return static_cast<int8_t>(q > 7.0f ? 7.0f : q < -8.0f ? -8.0f : q);
}

// The f32 value of the f16 nearest to v (the scale the kernels will read).
float as_stored_half(float v) { return simd::half_to_float(simd::float_to_half(v)); }

// Squared error of w[0, count) stored with `scale`.
double squared_error(const float* w, size_t count, float scale) {
  double error = 0.0;
  for (size_t i = 0; i < count; ++i) {
    const double d = double(w[i]) - double(quantize(w[i], scale)) * double(scale);
    error += d * d;
  }
  return error;
}

// The scale of one output's group (see q4gemm_pack): amax / 7, or the best of the search.
float choose_scale(const float* w, size_t count, bool search) {
  float amax = 0.0f;
  for (size_t i = 0; i < count; ++i) amax = std::fabs(w[i]) > amax ? std::fabs(w[i]) : amax;
  float best = as_stored_half(amax / 7.0f);
  if (!search || best == 0.0f) return best;
  double best_error = squared_error(w, count, best);
  for (int step = 1; step <= 6; ++step) {
    const float candidate = as_stored_half(amax / (7.0f + 0.25f * float(step)));
    const double error = squared_error(w, count, candidate);
    if (error < best_error) best = candidate, best_error = error;
  }
  return best;
}

// Every weight finite, and amax / 7 within f16 (65504).
bool check(const float* w, size_t n, size_t k, PackFailure* failure) {
  for (size_t row = 0; row < n; ++row) {
    for (size_t col = 0; col < k; ++col) {
      const float v = w[row * k + col];
      const char* why = !std::isfinite(v) ? "not finite" : std::fabs(v) / 7.0f > 65504.0f ? "|w| / 7 above f16" : nullptr;
      if (why != nullptr) {
        *failure = PackFailure{row, col, v, why};
        return false;
      }
    }
  }
  return true;
}

bool pack_with(const float* w, size_t n, size_t k, size_t group, uint8_t* packed, PackFailure* failure,
               bool search) {
  if (!check(w, n, k, failure)) return false;
  const size_t groups = q4_groups(k, group);
  std::vector<int8_t> q(n * k);
  std::vector<float> scales(n * groups);
  for (size_t row = 0; row < n; ++row) {
    for (size_t g = 0; g < groups; ++g) {
      const size_t begin = g * group, count = k - begin < group ? k - begin : group;
      const float* wg = w + row * k + begin;
      const float scale = choose_scale(wg, count, search);
      scales[row * groups + g] = scale;
      for (size_t i = 0; i < count; ++i) q[row * k + begin + i] = quantize(wg[i], scale);
    }
  }
  q4gemm_pack_quantized(q.data(), scales.data(), n, k, group, packed);
  return true;
}

}  // namespace

void q4gemm_pack_quantized(const int8_t* q, const float* scales, size_t n, size_t k, size_t group,
                           uint8_t* packed) {
  const size_t bytes = q4_packed_bytes(n, k, group), groups = q4_groups(k, group);
  std::memset(packed, kQ4Offset | (kQ4Offset << 4), bytes);  // q = 0 everywhere first
  for (size_t p = 0; p < panels_of(n); ++p) {
    for (size_t g = 0; g < groups; ++g) {  // scales: 0 past N
      std::memset(packed + scale_byte(k, group, p * kGemmPanel, g), 0, kQ4ScaleBytes);
    }
  }
  for (size_t row = 0; row < n; ++row) {
    for (size_t col = 0; col < k; ++col) {
      bool high = false;
      uint8_t& byte = packed[nibble_byte(k, group, row, col, &high)];
      const uint8_t u = static_cast<uint8_t>(q[row * k + col] + kQ4Offset);
      byte = high ? static_cast<uint8_t>((byte & 0x0F) | (u << 4)) : static_cast<uint8_t>((byte & 0xF0) | u);
    }
    for (size_t g = 0; g < groups; ++g) {
      const uint16_t h = simd::float_to_half(scales[row * groups + g]);
      std::memcpy(packed + scale_byte(k, group, row, g), &h, 2);
    }
  }
}

bool q4gemm_pack(const float* w, size_t n, size_t k, size_t group, uint8_t* packed, PackFailure* failure) {
  return pack_with(w, n, k, group, packed, failure, /*search=*/true);
}

bool q4gemm_pack_amax(const float* w, size_t n, size_t k, size_t group, uint8_t* packed,
                      PackFailure* failure) {
  return pack_with(w, n, k, group, packed, failure, /*search=*/false);
}

bool q4gemm_packed_consistent(const uint8_t* packed, size_t n, size_t k, size_t group, const char** why) {
  const size_t groups = q4_groups(k, group), rows = panels_of(n) * kGemmPanel;
  for (size_t row = 0; row < rows; ++row) {
    for (size_t g = 0; g < groups; ++g) {
      uint16_t h = 0;
      std::memcpy(&h, packed + scale_byte(k, group, row, g), 2);
      const float scale = simd::half_to_float(h);
      if (!std::isfinite(scale) || scale < 0.0f) {
        *why = "a group scale is negative or not finite";
        return false;
      }
      if (row >= n && h != 0) {
        *why = "a scale past the last output is not zero";
        return false;
      }
    }
    const size_t first_padding = row < n ? k : 0;  // nibbles from here to the quads' end are q = 0
    for (size_t col = first_padding; col < q4_quads(k) * kQ4QuadK; ++col) {
      bool high = false;
      const uint8_t byte = packed[nibble_byte(k, group, row, col, &high)];
      if ((high ? byte >> 4 : byte & 0x0F) != kQ4Offset) {
        *why = "a nibble past the last output or input is not q = 0";
        return false;
      }
    }
  }
  return true;
}

}  // namespace kernels
}  // namespace focal
