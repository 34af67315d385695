// The one per-row int8 quantizer (focal/internal/int8_row.h) against an independent
// twin that rounds by hand, and its users against it: the int8 GEMM's row quantization
// (with each variant's offset), int8 KV caches and int8 weight packing.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "attention/kv_store.h"
#include "focal/gemm.h"
#include "focal/internal/int8_row.h"
#include "qgemm/qgemm_kernels.h"
#include "support/aligned_buffer.h"
#include "support/random_values.h"

using namespace focal;

namespace {

// The independent twin: the same specification written apart from the engine's code,
// ties to even by floor and parity rather than by the rounding mode.
float independent_int8_row_twin(const std::vector<float>& x, std::vector<int8_t>* q) {
  q->assign(x.size(), 0);
  float amax = 0.0f;
  for (float v : x) {
    if (!(std::fabs(v) < INFINITY)) return NAN;
    if (std::fabs(v) > amax) amax = std::fabs(v);
  }
  if (amax == 0.0f) return 0.0f;
  const float inv = 127.0f / amax;
  for (size_t i = 0; i < x.size(); ++i) {
    const float product = x[i] * inv;
    double whole = std::floor(double(product));
    const double rest = double(product) - whole;
    if (rest > 0.5 || (rest == 0.5 && std::fmod(whole, 2.0) != 0.0)) whole += 1.0;
    (*q)[i] = static_cast<int8_t>(whole > 127.0 ? 127.0 : whole < -127.0 ? -127.0 : whole);
  }
  return amax / 127.0f;
}

bool same_scale(float a, float b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Rows the quantizer must agree on: random ones, exact ties, an all-zero row, NaN and
// infinity, subnormals, one element.
std::vector<std::vector<float>> rows() {
  std::vector<std::vector<float>> out;
  for (size_t k : {1, 7, 16, 33, 130}) out.push_back(testing::random_values(k, uint32_t(k), -3.0f, 3.0f));
  out.push_back({127.0f, 0.5f, -0.5f, 1.5f, -2.5f, 126.5f});  // inv = 1: every tie
  out.push_back(std::vector<float>(9, 0.0f));
  out.push_back({1.0f, NAN, 2.0f});
  out.push_back({1.0f, -INFINITY, 2.0f});
  out.push_back({1e-40f, -3e-39f, 0.0f});
  return out;
}

}  // namespace

TEST_CASE("int8 row: the one quantizer is its independent twin, zero rows have scale 0") {
  for (const std::vector<float>& x : rows()) {
    CAPTURE(x.size());
    std::vector<int8_t> want, got(x.size(), 99);
    const float want_scale = independent_int8_row_twin(x, &want);
    CHECK(same_scale(quantize_int8_row(x.data(), x.size(), got.data()), want_scale));
    CHECK(got == want);
  }
  std::vector<int8_t> q(4, 5);
  const float zeros[4] = {0.0f, -0.0f, 0.0f, 0.0f};
  CHECK(quantize_int8_row(zeros, 4, q.data()) == 0.0f);
  CHECK(q == std::vector<int8_t>(4, 0));
}

TEST_CASE("int8 row: the int8 GEMM's rows, KV caches and weight packing use it") {
  for (const std::vector<float>& x : rows()) {
    CAPTURE(x.size());
    const size_t k = x.size();
    std::vector<int8_t> want;
    const float scale = independent_int8_row_twin(x, &want);
    for (uint8_t offset : {uint8_t(0), uint8_t(128)}) {  // the offset of the VNNI variants
      std::vector<uint8_t> q(kernels::qgemm_row_bytes(k), 0x55);
      CHECK(same_scale(kernels::quantize_row_reference(x.data(), k, offset, q.data()), scale));
      for (size_t i = 0; i < q.size(); ++i) {
        CHECK(q[i] == uint8_t((i < k ? want[i] : 0) + offset));
      }
    }
    std::vector<int8_t> cache(k, 99);
    float cache_scale = -1.0f;
    kernels::store_kv_rows(kernels::KvRows{x.data(), k, 1, 1, k}, KvType::kI8, cache.data(), k, &cache_scale, 1);
    CHECK(same_scale(cache_scale, scale));
    CHECK(cache == want);
    if (std::isnan(scale)) continue;  // packing refuses non-finite weights
    testing::AlignedBuffer packed(packed_dense_weights_bytes(DType::kI8, 1, k));
    REQUIRE(pack_dense_weights(DType::kI8, x.data(), 1, k, packed.data(), packed.size()).ok());
    for (size_t i = 0; i < k; ++i) CHECK(int8_t(packed.data()[i * 32]) == want[i]);  // panels of 32 outputs
  }
}
