// The GEMM weight packing (focal/gemm.h): f16 and bf16 round to nearest even, int8
// quantizes symmetrically per output (or with the caller's scales), the tail panel is
// padded with zeros, and what cannot be stored is refused with a message.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "focal/gemm.h"
#include "support/aligned_buffer.h"
#include "support/packed_weights.h"
#include "support/random_values.h"

using namespace focal;
using focal::testing::AlignedBuffer;
using focal::testing::decode_packed;
using focal::testing::kPanel;

namespace {

const char* type_name(DType type) { return dtype_name(type); }

}  // namespace

TEST_CASE("gemm: packing rounds to nearest even, quantizes symmetrically, pads with zeros") {
  const size_t n = 37, k = 21;
  std::vector<float> w = testing::random_values(n * k, 5, -3.0f, 3.0f);
  w[0] = 1e-6f;            // a subnormal half
  w[1] = 65504.0f;         // the largest half
  w[2] = -1.00048828125f;  // 1 + 2^-11: halfway between the halves 1 and 1 + 2^-10
  w[3] = 0.0f;
  for (size_t i = 0; i < k; ++i) w[5 * k + i] = 0.0f;  // an all-zero output row
  for (DType type : {DType::kF32, DType::kF16, DType::kBF16, DType::kI8}) {
    CAPTURE(type_name(type));
    const size_t bytes = packed_dense_weights_bytes(type, n, k);
    const size_t panels = (n + kPanel - 1) / kPanel;
    const size_t panel_bytes = panels * k * kPanel * dtype_size(type);
    CHECK(bytes ==
          (type == DType::kI8 ? (panel_bytes + 63) / 64 * 64 + panels * kPanel * 4 : panel_bytes));
    AlignedBuffer packed(bytes);
    std::memset(packed.data(), 0xAB, bytes);
    REQUIRE(pack_dense_weights(type, w.data(), n, k, packed.data(), bytes).ok());
    const std::vector<double> stored = decode_packed(type, packed.data(), n, k);
    for (size_t row = 0; row < n; ++row) {
      float amax = 0.0f;
      for (size_t i = 0; i < k; ++i) amax = std::max(amax, std::fabs(w[row * k + i]));
      const float scale = amax / 127.0f;
      for (size_t i = 0; i < k; ++i) {
        const double v = w[row * k + i];
        double want = v;
        if (type == DType::kF16 || type == DType::kBF16) {
          // Round to 11 (f16) or 8 (bf16) significant bits, in double, ties to even;
          // halves below 2^-14 keep the 2^-24 spacing.
          const int bits = type == DType::kF16 ? 11 : 8;
          const int exponent =
              v == 0 ? 0 : std::max(std::ilogb(v), type == DType::kF16 ? -14 : -126);
          want =
              std::ldexp(std::nearbyint(std::ldexp(v, bits - 1 - exponent)), exponent - (bits - 1));
        } else if (type == DType::kI8) {
          // q = rint(w * 127 / amax) (the one row quantizer's, focal/internal/int8_row.h)
          const double q = scale == 0.0f ? 0.0 : std::nearbyint(double(float(v) * (127.0f / amax)));
          want = double(scale) * std::max(-127.0, std::min(127.0, q));
          CHECK(std::fabs(want - v) <= double(scale) * 0.5 * (1 + 1e-6));
        }
        if (stored[row * k + i] != want) {
          FAIL_CHECK("w[" << row << "][" << i << "] = " << v << " stored as " << stored[row * k + i]
                          << ", expected " << want);
        }
      }
    }
    if (type == DType::kF16) CHECK(stored[2] == -1.0);  // the tie went to the even half
  }
  // Caller-given int8 scales are used as they are.
  std::vector<float> scales(n, 0.05f);
  const size_t bytes = packed_dense_weights_bytes(DType::kI8, n, k);
  AlignedBuffer packed(bytes);
  REQUIRE(pack_dense_weights(DType::kI8, w.data(), n, k, packed.data(), bytes, scales.data()).ok());
  const std::vector<double> stored = decode_packed(DType::kI8, packed.data(), n, k);
  CHECK(stored[7] ==
        doctest::Approx(0.05 *
                        std::max(-127.0, std::min(127.0, std::nearbyint(double(w[7] / 0.05f))))));
  CHECK(stored[1] == doctest::Approx(0.05 * 127));  // 65504 clamps to 127
}

TEST_CASE("gemm: packing refuses what cannot be stored") {
  const size_t n = 3, k = 4;
  std::vector<float> w(n * k, 0.5f);
  AlignedBuffer packed(packed_dense_weights_bytes(DType::kF32, n, k));
  const auto message = [&](DType type, const float* scales = nullptr) {
    const Result<size_t> r =
        pack_dense_weights(type, w.data(), n, k, packed.data(), packed.size(), scales);
    return r.ok() ? std::string("ok") : std::string(r.status().message());
  };
  w[1 * k + 2] = 70000.0f;
  CHECK(message(DType::kF16) ==
        "pack_dense_weights: w[1][2] cannot be stored as f16 (|w| >= 65520)");
  CHECK(message(DType::kBF16) == "ok");
  CHECK(message(DType::kF32) == "ok");
  w[1 * k + 2] = 3.4e38f;
  CHECK(message(DType::kBF16).find("w[1][2] cannot be stored as bf16") != std::string::npos);
  w[1 * k + 2] = NAN;
  CHECK(message(DType::kI8).find("w[1][2] cannot be stored as i8 (not finite)") !=
        std::string::npos);
  CHECK(message(DType::kF32) == "ok");  // f32 weights are stored as they are
  w[1 * k + 2] = 0.5f;
  const float bad_scales[3] = {1.0f, 0.0f, 1.0f};
  CHECK(message(DType::kI8, bad_scales).find("scales[1]") != std::string::npos);
  CHECK(message(DType::kI32).find("not i32") != std::string::npos);
  CHECK(!pack_dense_weights(DType::kF32, w.data(), n, k, packed.data(), 8).ok());
  CHECK(!pack_dense_weights(DType::kF32, w.data(), 0, k, packed.data(), packed.size()).ok());
  CHECK(packed_dense_weights_bytes(DType::kF32, n, 0) == 0);
  CHECK(packed_dense_weights_bytes(DType::kI32, n, k) == 0);
}
