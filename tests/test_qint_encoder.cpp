// The static-int8 kernels a transformer encoder adds (engine/src/kernels/qint/:
// qlayer_norm.cpp, qpointwise.cpp, qattention.cpp, softmax_q15.cpp): layer
// normalization, the residual add, the 256-entry table and one head of scaled
// dot-product attention against double-precision references, quantized as the converter will
// quantize them (within one int8 step, rows of ragged widths, extreme and constant rows,
// negative gammas), and a fingerprint of a fixed pipeline whose value is written here:
// plain C on every core, but with 64-bit products and a 64-bit division per row that 32-bit
// cores (armv7, Cortex-M) do in software, so every core that passes it (host, aarch64,
// armv7 and the Cortex-M images) computes the same bits.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "qint/fixed_point.h"
#include "qint/qint_kernels.h"
#include "support/lcg.h"

using namespace focal::kernels;
using focal::testing::Lcg;

namespace {

int8_t quantize(double real, double scale, int32_t zero_point) {
  const double q = std::nearbyint(real / scale) + zero_point;
  return int8_t(std::min(127.0, std::max(-128.0, q)));
}

// A layer norm quantized as the converter quantizes it, with its double reference.
struct LayerNormCase {
  size_t width;
  double x_scale, y_scale, eps;
  int32_t x_zero_point, y_zero_point;
  std::vector<double> gamma, beta;
  std::vector<int32_t> multiplier, shift, bias;

  QLayerNormParams params() {
    multiplier.resize(width), shift.resize(width), bias.resize(width);
    for (size_t i = 0; i < width; ++i) {
      qint::FixedMultiplier m{};
      REQUIRE(qint::quantize_multiplier(std::fabs(gamma[i]) / (y_scale * double(1 << kQLayerNormFracBits)), &m));
      multiplier[i] = gamma[i] < 0 ? -m.multiplier : m.multiplier;
      shift[i] = m.shift;
      bias[i] = int32_t(std::nearbyint(beta[i] / y_scale));
    }
    QLayerNormParams p;
    p.width = width;
    p.x_zero_point = x_zero_point;
    p.epsilon_q = int64_t(std::nearbyint(double(width) * double(width) * eps / (x_scale * x_scale)));
    p.multiplier = multiplier.data(), p.shift = shift.data(), p.bias = bias.data();
    p.output_zero_point = y_zero_point;
    return p;
  }

  // torch.nn.LayerNorm in double on the dequantized row, quantized to the output.
  std::vector<int8_t> reference(const std::vector<int8_t>& q) const {
    std::vector<double> x(width);
    double mean = 0, var = 0;
    for (size_t i = 0; i < width; ++i) mean += (x[i] = x_scale * (q[i] - x_zero_point)) / double(width);
    for (size_t i = 0; i < width; ++i) var += (x[i] - mean) * (x[i] - mean) / double(width);
    std::vector<int8_t> y(width);
    for (size_t i = 0; i < width; ++i) {
      y[i] = quantize(gamma[i] * (x[i] - mean) / std::sqrt(var + eps) + beta[i], y_scale, y_zero_point);
    }
    return y;
  }
};

LayerNormCase layer_norm_case(size_t width, Lcg& rng) {
  LayerNormCase c{width, rng.uniform(0.005, 0.2), rng.uniform(0.01, 0.05), 1e-5,
                  int32_t(rng.s8() / 2), int32_t(rng.s8() / 4), {}, {}, {}, {}, {}};
  for (size_t i = 0; i < width; ++i) {
    c.gamma.push_back(rng.uniform(-1.5, 1.5));
    c.beta.push_back(rng.uniform(-0.5, 0.5));
  }
  return c;
}

int worst_difference(const std::vector<int8_t>& got, const std::vector<int8_t>& want) {
  int worst = 0;
  for (size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::abs(int(got[i]) - int(want[i])));
  return worst;
}

uint32_t fingerprint(uint32_t hash, const int8_t* bytes, size_t count) {
  for (size_t i = 0; i < count; ++i) hash = (hash ^ uint8_t(bytes[i])) * 16777619u;
  return hash;
}

}  // namespace

TEST_CASE("qint: layer norm within one int8 step of double, ragged widths and extreme rows") {
  Lcg rng{7};
  for (size_t width : {size_t(1), size_t(2), size_t(3), size_t(7), size_t(48), size_t(64), size_t(301), size_t(768)}) {
    CAPTURE(width);
    LayerNormCase c = layer_norm_case(width, rng);
    const QLayerNormParams p = c.params();
    std::vector<int8_t> x(width), y(width);
    for (int row = 0; row < 6; ++row) {
      CAPTURE(row);
      for (size_t i = 0; i < width; ++i) {
        switch (row) {
          case 0: x[i] = rng.s8(); break;
          case 1: x[i] = int8_t(i % 2 ? 127 : -128); break;                  // largest variance
          case 2: x[i] = int8_t(c.x_zero_point + (i == 0 ? 1 : 0)); break;   // one step off constant
          case 3: x[i] = int8_t(40); break;                                  // constant: y = beta
          case 4: x[i] = int8_t(rng.s8() / 32); break;                       // small spread
          default: x[i] = int8_t(i == width - 1 ? 127 : -128); break;        // one outlier
        }
      }
      qlayer_norm_s8(p, x.data(), y.data());
      CHECK(worst_difference(y, c.reference(x)) <= 1);
    }
  }
}

TEST_CASE("qint: layer norm's epsilon dominates a near-constant row as in double") {
  Lcg rng{11};
  LayerNormCase c = layer_norm_case(32, rng);
  c.eps = 0.5;  // larger than the row's variance
  const QLayerNormParams p = c.params();
  std::vector<int8_t> x(32), y(32);
  for (size_t i = 0; i < 32; ++i) x[i] = int8_t(i % 3);
  qlayer_norm_s8(p, x.data(), y.data());
  CHECK(worst_difference(y, c.reference(x)) <= 1);
}

TEST_CASE("qint: the int8 add within one step of double, zero points and scales of their own") {
  Lcg rng{3};
  for (int trial = 0; trial < 40; ++trial) {
    const double sa = rng.uniform(0.002, 0.3), sb = rng.uniform(0.002, 0.3), sy = rng.uniform(0.01, 0.4);
    const int32_t za = rng.s8() / 2, zb = rng.s8() / 2, zy = rng.s8() / 2;
    // The converter's record: the largest shift keeping both multipliers within 2^21.
    QAddParams p;
    p.shift = 31;
    while (std::nearbyint(std::ldexp(std::max(sa, sb) / sy, p.shift)) > kQAddMaxMultiplier) --p.shift;
    p.a_zero_point = za, p.a_multiplier = int32_t(std::nearbyint(std::ldexp(sa / sy, p.shift)));
    p.b_zero_point = zb, p.b_multiplier = int32_t(std::nearbyint(std::ldexp(sb / sy, p.shift)));
    p.output_zero_point = zy;
    std::vector<int8_t> a(256), b(256), y(256), want(256);
    for (size_t i = 0; i < 256; ++i) {
      a[i] = int8_t(int(i) - 128);
      b[i] = trial % 2 ? rng.s8() : int8_t(127 - int(i));
      want[i] = quantize(sa * (a[i] - za) + sb * (b[i] - zb), sy, zy);
    }
    qadd_s8(p, a.data(), b.data(), a.size(), y.data());
    CAPTURE(trial);
    CHECK(worst_difference(y, want) <= 1);
    // Bit for bit the header's formula (every core: Helium runs four lanes, then the
    // tail of an odd count element by element).
    std::vector<int8_t> odd(253);
    qadd_s8(p, a.data(), b.data(), odd.size(), odd.data());
    for (size_t i = 0; i < 256; ++i) {
      const int32_t sum = (a[i] - za) * p.a_multiplier + (b[i] - zb) * p.b_multiplier + (int32_t(1) << (p.shift - 1));
      const int32_t exact = qint::clamp((sum >> p.shift) + zy, -128, 127);
      CHECK(y[i] == exact);
      if (i < odd.size()) CHECK(odd[i] == exact);
    }
  }
}

TEST_CASE("qint: a 256-entry table maps every int8 value") {
  std::vector<int8_t> table(256), x(256), y(256);
  for (size_t i = 0; i < 256; ++i) {
    const int v = int(i) - 128;
    const double real = 0.05 * v;
    table[i] = quantize(0.5 * real * (1 + std::erf(real / std::sqrt(2.0))), 0.03, -20);  // GELU
    x[i] = int8_t(v);
  }
  qlookup_s8(table.data(), x.data(), x.size(), y.data());
  CHECK(y == table);
}

TEST_CASE("qint: a fixed encoder-style pipeline gives the same bits on every core") {
  // Layer norm of 16 rows of 48, a residual add and a table: the fingerprint of every output.
  Lcg rng{2024};
  LayerNormCase c = layer_norm_case(48, rng);
  const QLayerNormParams p = c.params();
  QAddParams add;
  add.a_multiplier = 1 << 20, add.b_multiplier = 699051, add.shift = 21, add.output_zero_point = 3;
  std::vector<int8_t> table(256);
  for (auto& v : table) v = rng.s8();
  uint32_t hash = 2166136261u;
  std::vector<int8_t> x(48), normed(48), sum(48), mapped(48);
  for (int row = 0; row < 16; ++row) {
    for (auto& v : x) v = rng.s8();
    qlayer_norm_s8(p, x.data(), normed.data());
    qadd_s8(add, x.data(), normed.data(), 48, sum.data());
    qlookup_s8(table.data(), sum.data(), 48, mapped.data());
    hash = fingerprint(hash, normed.data(), 48);
    hash = fingerprint(hash, sum.data(), 48);
    hash = fingerprint(hash, mapped.data(), 48);
  }
  MESSAGE("qint encoder fingerprint: " << hash);
  CHECK(hash == 1101592022u);
}

namespace {

// One head's problem: int8 q, k (symmetric) and v in rows of `stride` elements.
struct AttentionCase {
  size_t queries = 5, keys = 7, head_dim = 12, stride = 20;
  std::vector<int8_t> q, k, v;
  QAttentionParams params;
  double score_real = 0, output_real = 0;  // the multipliers as reals
};

AttentionCase attention_case(uint32_t seed) {
  AttentionCase c;
  Lcg rng{seed};
  for (auto* rows : {&c.q, &c.k, &c.v}) {
    rows->resize(std::max(c.queries, c.keys) * c.stride);
    for (auto& e : *rows) e = rng.s8();
  }
  QAttentionParams& p = c.params;
  p.queries = c.queries, p.keys = c.keys, p.head_dim = c.head_dim;
  p.q_stride = p.k_stride = p.v_stride = c.stride;
  p.out_stride = c.head_dim;
  qint::FixedMultiplier m{};
  REQUIRE(qint::quantize_multiplier(0.06, &m));  // scores of about +-8 in Q4.11 units / 2048
  p.score_multiplier = m.multiplier, p.score_shift = m.shift;
  c.score_real = double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
  REQUIRE(qint::quantize_multiplier(std::ldexp(1.0, -15) * 0.9, &m));
  p.output_multiplier = m.multiplier, p.output_shift = m.shift;
  c.output_real = double(m.multiplier) * std::ldexp(1.0, m.shift - 31);
  p.v_zero_point = -5, p.output_zero_point = 4;
  return c;
}

// The kernel's output and weights for `key_valid` (null: all keys).
void run_attention(const AttentionCase& c, const uint8_t* key_valid, std::vector<int16_t>* weights,
                   std::vector<int8_t>* out) {
  std::vector<int32_t> scores(c.keys), acc(c.head_dim);
  std::vector<uint8_t> seen(c.keys);
  weights->assign(c.queries * c.keys, int16_t(-1));
  out->assign(c.queries * c.head_dim, int8_t(99));
  qattention_head(qint_kernels(), c.params, c.q.data(), c.k.data(), c.v.data(), key_valid,
                  QAttentionScratch{scores.data(), seen.data(), acc.data()}, weights->data(), out->data());
}

}  // namespace

TEST_CASE("qint: one attention head against double: padding, holes, causal, a query that sees nothing") {
  const std::vector<uint8_t> all(7, 1), padded{1, 1, 1, 1, 0, 0, 0}, holes{0, 1, 1, 0, 1, 0, 1}, none(7, 0);
  for (bool causal : {false, true}) {
    for (const auto* valid : {&all, &padded, &holes, &none}) {
      AttentionCase c = attention_case(91);
      c.params.causal = causal;
      CAPTURE(causal);
      CAPTURE(valid == &all ? "all" : valid == &padded ? "padded" : valid == &holes ? "holes" : "none");
      std::vector<int16_t> weights;
      std::vector<int8_t> out;
      run_attention(c, valid->data(), &weights, &out);
      if (valid == &all && !causal) {  // the scores spread: no weight takes (nearly) all
        CHECK(*std::max_element(weights.begin(), weights.end()) < 26000);
        CHECK(*std::min_element(weights.begin(), weights.end()) > 30);
      }
      for (size_t i = 0; i < c.queries; ++i) {
        std::vector<double> a(c.keys, 0.0);
        double largest = -1e300, total = 0;
        for (size_t j = 0; j < c.keys; ++j) {
          if ((*valid)[j] == 0 || (causal && j > i)) continue;
          int32_t dot = 0;
          for (size_t d = 0; d < c.head_dim; ++d) dot += int32_t(c.q[i * c.stride + d]) * c.k[j * c.stride + d];
          a[j] = double(dot) * c.score_real / 2048.0;
          largest = std::max(largest, a[j]);
        }
        for (size_t j = 0; j < c.keys; ++j) {
          const bool seen = (*valid)[j] != 0 && !(causal && j > i);
          total += a[j] = seen ? std::exp(a[j] - largest) : 0.0;
        }
        for (size_t j = 0; j < c.keys; ++j) {
          const double want = total > 0 ? a[j] / total : 0.0;
          CHECK(std::fabs(weights[i * c.keys + j] / 32768.0 - want) <= 2e-3);
        }
        for (size_t d = 0; d < c.head_dim; ++d) {
          double sum = 0;
          for (size_t j = 0; j < c.keys; ++j) sum += (total > 0 ? a[j] / total : 0.0) * (c.v[j * c.stride + d] + 5.0);
          const double want = std::min(127.0, std::max(-128.0, sum * 32768.0 * c.output_real + 4.0));
          CHECK(std::fabs(out[i * c.head_dim + d] - want) <= 1.0);
        }
      }
    }
  }
}

TEST_CASE("qint: attention heads give the same bits on every core") {
  uint32_t hash = 2166136261u;
  const std::vector<uint8_t> holes{1, 0, 1, 1, 1, 0, 1};
  for (uint32_t seed : {5u, 6u, 7u}) {
    AttentionCase c = attention_case(seed);
    c.params.causal = seed == 6u;
    std::vector<int16_t> weights;
    std::vector<int8_t> out;
    run_attention(c, seed == 7u ? holes.data() : nullptr, &weights, &out);
    for (int16_t w : weights) hash = fingerprint(hash, reinterpret_cast<const int8_t*>(&w), 2);
    hash = fingerprint(hash, out.data(), out.size());
  }
  MESSAGE("qint attention fingerprint: " << hash);
  CHECK(hash == 3454206216u);
}
