// Reading packed GEMM weights back, for the tests of the GEMM and its packing.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "focal/tensor.h"
#include "simd/vec_scalar.hpp"

namespace focal {
namespace testing {

constexpr size_t kPanel = 32;  // outputs per packed panel (include/focal/gemm.h)

// Decodes the packed bytes as include/focal/gemm.h documents them: [n][k] real weights
// (int8: scale * q) in double. Checks the zero padding of the tail panel on the way.
inline std::vector<double> decode_packed(DType type, const uint8_t* bytes, size_t n, size_t k) {
  const size_t panels = (n + kPanel - 1) / kPanel;
  const size_t scales_at = (panels * k * kPanel + 63) / 64 * 64;
  std::vector<double> w(n * k);
  for (size_t row = 0; row < panels * kPanel; ++row) {
    double scale = 1.0;
    if (type == DType::kI8) {
      float s;
      std::memcpy(&s, bytes + scales_at + row * 4, 4);
      scale = s;
    }
    for (size_t i = 0; i < k; ++i) {
      const size_t at = ((row / kPanel) * k + i) * kPanel + row % kPanel;
      double value = 0.0;
      if (type == DType::kF32) {
        float f;
        std::memcpy(&f, bytes + at * 4, 4);
        value = f;
      } else if (type == DType::kF16 || type == DType::kBF16) {
        uint16_t h;
        std::memcpy(&h, bytes + at * 2, 2);
        value = type == DType::kF16 ? simd::half_to_float(h) : simd::bf16_to_float(h);
      } else {
        value = scale * static_cast<int8_t>(bytes[at]);
      }
      if (row < n) {
        w[row * k + i] = value;
      } else if (value != 0.0) {
        FAIL("padding output " << row << " k " << i << " is " << value << ", not 0");
      }
    }
  }
  return w;
}

}  // namespace testing
}  // namespace focal
